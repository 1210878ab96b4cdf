"""The entry point of a local worker process: ``python -m stickbreak.parallel._serve TASKS ANSWERS DRIVER``
(file descriptors of its two pipes and the driver's process id; see :mod:`.processes`)."""

import sys
from multiprocessing.connection import Connection

from .processes import serve

if __name__ == "__main__":
    serve(Connection(int(sys.argv[1]), writable=False), Connection(int(sys.argv[2]), readable=False), int(sys.argv[3]))
