"""LDA local-step options on wiki (K=20, batch VB, 10 laps): CPU, iterations and held-out score.

Usage: python benchmarks/lda_local_options.py INIT TOL N_RESTARTS START [MAX_ITER]
  INIT: "gamma" (near-uniform random topics) or a number of documents per topic;
  START: scratch | warm | best. E.g. `gamma 0.5 0 scratch`, `gamma 0.05 0 warm`, `5 0.5 0 best`.
The figures behind the LocalOptions and init defaults (see their docstrings) come from this script.
One run per process: the last line ends with the process's peak RSS (data, fit, scoring).
"""
import numpy as np, scipy.sparse as sp, time, sys
from _rss import peak_rss_mib
from stickbreak.models.topics.model import TopicModel, LocalOptions
from stickbreak.priors import topic_lda as lda
from stickbreak.data import BagOfWords
z=np.load('/work/shared/data/wiki/bow.npz'); X=sp.csr_matrix((z['data'],z['indices'],z['indptr']),
                                                             shape=tuple(z['shape'])).astype(float)
rng=np.random.RandomState(0); perm=rng.permutation(X.shape[0]); ntest=X.shape[0]//10
Xtr=X[perm[:-ntest]]; keep=np.asarray(Xtr.sum(0)).ravel()>0; Xtr=Xtr[:,keep]
data=BagOfWords.from_counts(Xtr)
K=20; init=sys.argv[1]; tol=float(sys.argv[2]); nr=int(sys.argv[3]); warm=sys.argv[4]=='warm'
model=TopicModel({"lam": np.full(Xtr.shape[1], 0.01)}, lda, lda.default_prior(0.1),
                 LocalOptions(n_restarts=nr, tol=tol, start=sys.argv[4],
                              max_iter=int(sys.argv[5]) if len(sys.argv)>5 else 100))
g=np.random.default_rng(0)
if init=='gamma': lam = 0.01 + g.gamma(100, 0.01, (K, Xtr.shape[1]))
else:
    idx=g.choice(data.n_items, K*int(init), replace=False).reshape(K,-1)
    lam = 0.01 + np.vstack([np.asarray(Xtr[i].sum(0)).ravel() for i in idx])
params=model.initial_params(lam, data.n_items)
w=None; tot=0
for lap in range(10):
    t=time.process_time()
    loc=model.local_step(params,data,warm=w); w=model.warm_start(loc)
    st=model.summarize(data,loc,params.uids); params=model.global_step(st,params)
    dt=time.process_time()-t; tot+=dt
    el=sum(model.elbo_terms(params,st).values())
    print(lap+1, round(el),
          f"{dt:.2f}s mean_iters={loc.n_iters.mean():.1f} max={loc.n_iters.max()} restarts={loc.n_restarts.sum()}")
from stickbreak.evaluate import completion_from_split, split_documents
Xte=X[perm[-ntest:]][:,keep]; Xte=Xte[np.asarray(Xte.sum(1)).ravel()>0]
o,h=split_documents(Xte, seed=1)
print('total cpu', round(tot,2), 'heldout', completion_from_split(params.topic_word,o,h).per_word, 'peak RSS MiB',
      round(peak_rss_mib()))
