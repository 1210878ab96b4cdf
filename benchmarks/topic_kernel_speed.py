"""Cost of one pass of the topic fixed point over wiki (K=20, random topics): CPU s for 1..81 iterations.

Each line in a fresh process (after an untimed one-iteration pass there, numba's kernels), with its
peak RSS in MiB.

Usage: python benchmarks/topic_kernel_speed.py
"""
import numpy as np, scipy.sparse as sp, time
from _rss import in_fresh_process
from stickbreak.kernels.topics.dense import topic_local_step


def one(it: int) -> dict:
    z=np.load('/work/shared/data/wiki/bow.npz'); X=sp.csr_matrix((z['data'],z['indices'],z['indptr']),
                                                                 shape=tuple(z['shape'])).astype(float)
    V=X.shape[1]; K=20; rng=np.random.default_rng(0)
    C=np.log(rng.dirichlet(np.ones(V)*0.1,size=K)).T; Cc=np.ascontiguousarray(C-C.max(1,keepdims=True)); E=np.exp(Cc)
    prior=np.full(K,0.1)
    cpu = []
    for iters in (1, it):  # the first untimed
        N=np.zeros((X.shape[0],K))
        t=time.process_time(); topic_local_step(X.indptr,X.indices,X.data,E,Cc,prior,0.0,N,0,iters,-1.0,0,
                                                np.zeros((0,2),dtype=np.int64),1,
                                                np.zeros((0,K))); cpu.append(time.process_time()-t)
    return {"cpu": cpu[-1], "nnz": X.nnz}


if __name__ == "__main__":
    for it in [1,1,21,41,81,81]:
        row = in_fresh_process(one, it); print(it, row["cpu"], round(row["peak_rss_mib"]))
    print("nnz",row["nnz"])
