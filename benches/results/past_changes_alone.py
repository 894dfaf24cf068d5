"""How well the past-change cue alone ranks the gold files: TF-IDF cosine of the task
with each of the last 2,000 commit messages, past(f) as in locate/past_changes.rs
(its tokenizer approximated in Python).

    python3 benches/results/past_changes_alone.py TASKS.jsonl CHECKOUTS

CHECKOUTS holds one git work tree with history per task id (eval_tasks
--with-history --checkouts CHECKOUTS). Prints the number of tasks and the share whose
gold files are all within the first 1, 5, 10 and 50 files, and lent to at all."""
import json, math, re, subprocess, sys, collections
STOP=set("a an and are as at be been but by can could do does for from had has have he here how i if in into is it its me my no not of on or our so some than that the their them then there these they this those to too us was we were what when where which while who why will with would you your should also just like get set use used using one two new self none true false null nil return def class import var let const func fn pub public private static void int str string end else elif try except catch py js ts rs go java rb php cpp www com org github issue issues example thanks please any all only same way need want see seem seems make work works".split())
def toks(t):
    out=[]
    for w in re.findall(r'[A-Za-z0-9_]+', t):
        parts=[p for p in re.findall(r'[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])', w)] or [w]
        for p in set([w]+parts):
            p=p.lower().replace('_','')
            if len(p)<2 or p.isdigit() or p in STOP: continue
            out.append(p)
    return out
def commits(root):
    out=subprocess.run(['git','-C',root,'log','-z','--name-only','--no-merges','--format=%x1e%ct%x1f%s%x1f%b','--max-count=2000','HEAD','--'],capture_output=True).stdout.decode('utf8','replace')
    res=[]
    for rec in out.split('\x1e')[1:]:
        head,_,files=rec.partition('\x00')
        t,s,b=(head.split('\x1f',2)+['',''])[:3]
        paths=[p.strip('\n') for p in files.split('\x00') if p.strip('\n')]
        if 0<len(paths)<=50: res.append((int(t),s+'\n'+b[:1024],paths))
    return res
sets=collections.Counter(); n=0
for line in open(sys.argv[1]):
    task=json.loads(line); root=f"{sys.argv[2]}/{task['id']}"
    try: cs=commits(root)
    except Exception: continue
    if not cs: continue
    head=max(c[0] for c in cs)
    docs=[collections.Counter(toks(m)) for _,m,_ in cs]
    df=collections.Counter(t for d in docs for t in d)
    N=len(docs); idf={t:math.log(1+N/v) for t,v in df.items()}
    q=collections.Counter(toks(task['task']))
    qv={t:(1+math.log(c))*idf.get(t,math.log(1+N)) for t,c in q.items()}
    qn=math.sqrt(sum(v*v for v in qv.values())) or 1
    sims=[]
    for d in docs:
        dv={t:(1+math.log(c))*idf[t] for t,c in d.items()}
        dn=math.sqrt(sum(v*v for v in dv.values())) or 1
        sims.append(sum(qv[t]*dv[t] for t in qv if t in dv)/(qn*dn))
    changed=collections.Counter(p for _,_,ps in cs for p in ps)
    best=sorted([k for k in range(N) if sims[k]>=0.15], key=lambda k:-sims[k])[:24]
    score=collections.Counter()
    for k in best:
        t,_,ps=cs[k]; age=1/(1+(head-t)/86400/365)
        for p in ps: score[p]+=sims[k]*age/math.sqrt(len(ps))*math.log(1+N/changed[p])/math.log(1+N)
    ranked=[p for p,_ in score.most_common()]
    gold=task['gold_files']; n+=1
    rk=max((ranked.index(g)+1 if g in ranked else 10**6) for g in gold)
    for k in (1,5,10,50): sets[k]+= rk<=k
    sets['any']+= any(g in ranked for g in gold)
print(n, {k: round(v/n,3) for k,v in sets.items()})
