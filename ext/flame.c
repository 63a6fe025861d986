/*
** flame.c — a self-contained SVG flame graph (icicle: roots on top) of a capture's parent tree,
** without SQLite. Frames are merged by stack (the names from the root down, as folded stacks
** are), each frame's width is the self time of everything under it, i.e. its inclusive time
** (slices: dur minus the children's dur, never negative; timings records: self_ns). A capture
** with stack samples (ext/stacks.h) is drawn from its samples: width = sampled time (their dur),
** or the sample count (weights) when no sample has a duration (folded stacks, perf cycles). The first
** level is each track or thread ("process / thread"; timings: the category), or the roots.
** Hovering a frame shows its <title>: name, milliseconds and share of the total. No script, no
** external reference: it opens in any browser offline.
*/
#include "flame.h"
#include "writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct FNode {
  uint32_t name;          /* pool id (0: unnamed), or thread label index with bThread */
  int32_t parent, firstChild, nextSibling;
  int64_t value;          /* self ns summed here; inclusive after the sum pass */
  uint8_t bThread;
} FNode;

typedef struct Fl {
  FNode *a; size_t n, nAlloc;
  uint32_t *aHash; size_t nHash;      /* (parent, name, bThread) -> node + 1 */
} Fl;

static uint64_t fl_key(int32_t parent, uint32_t name, int bThread){
  return ((uint64_t)(uint32_t)parent * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)name << 1) ^ (uint64_t)bThread;
}

static int fl_rehash(Fl *f){
  size_t nh = f->nHash ? f->nHash*2 : 1024;
  uint32_t *h = calloc(nh, sizeof(uint32_t));
  if( h==0 ) return -1;
  for(size_t i=0; i<f->n; i++){
    uint64_t k = fl_key(f->a[i].parent, f->a[i].name, f->a[i].bThread);
    size_t j = (size_t)(k % nh);
    while( h[j] ) j = (j+1) % nh;
    h[j] = (uint32_t)i + 1;
  }
  free(f->aHash); f->aHash = h; f->nHash = nh;
  return 0;
}

/* *pV += d, saturating at ±INT64_MAX: hostile captures can hold durations near 2^63 ns, and a
** frame wider than that is drawn full width rather than wrapping around. */
static void fl_add(int64_t *pV, int64_t d){
  if( __builtin_add_overflow(*pV, d, pV) || *pV==INT64_MIN ) *pV = d>0 ? INT64_MAX : -INT64_MAX;
}

/* The child of parent named name (created when missing); -1 when out of memory. */
static int32_t fl_child(Fl *f, int32_t parent, uint32_t name, int bThread){
  if( f->n*2 >= f->nHash && fl_rehash(f) ) return -1;
  uint64_t k = fl_key(parent, name, bThread);
  size_t j = (size_t)(k % f->nHash);
  while( f->aHash[j] ){
    FNode *x = &f->a[f->aHash[j]-1];
    if( x->parent==parent && x->name==name && x->bThread==bThread ) return (int32_t)(f->aHash[j]-1);
    j = (j+1) % f->nHash;
  }
  if( ps_grow((void**)&f->a, sizeof(FNode), &f->nAlloc, f->n+1) ) return -1;
  int32_t id = (int32_t)f->n++;
  FNode *x = &f->a[id];
  x->name = name; x->parent = parent; x->firstChild = -1; x->value = 0; x->bThread = (uint8_t)bThread;
  x->nextSibling = parent>=0 ? f->a[parent].firstChild : -1;
  if( parent>=0 ) f->a[parent].firstChild = id;
  f->aHash[j] = (uint32_t)id + 1;
  return id;
}

static void xml_text(PsBuf *b, const char *z, size_t n){
  for(size_t i=0; i<n; i++){
    const char *r = z[i]=='<' ? "&lt;" : z[i]=='>' ? "&gt;" : z[i]=='&' ? "&amp;" : z[i]=='"' ? "&quot;" : 0;
    unsigned char c = (unsigned char)z[i];
    if( r ) ps_buf_puts(b, r);
    else if( c < 0x20 && c!='\t' ) ps_buf_puts(b, " ");
    else ps_buf_append(b, z+i, 1);
  }
}

/* A frame's label text. */
static void fl_label(const PsCapture *cap, const FNode *x, char **azThread, PsBuf *b){
  if( x->bThread ){ ps_buf_puts(b, azThread[x->name]); return; }
  if( x->name==0 ){ ps_buf_puts(b, "(unnamed)"); return; }
  PsStr s = ps_pool_get(&cap->pool, x->name);
  xml_text(b, s.z, s.n);
}

/* The first-level frame of group t, escaped for SVG (malloc'ed; NULL when out of memory):
** bCategory (timings records): the category; else "process / thread", or for an async track "process / async
** cat=x id=0x1". A process or thread without a name is "pid N" / "tid N" (ps_value_text). */
static char *fl_group_label(const PsCapture *cap, int bCategory, int bByTrack, uint32_t t){
  PsBuf lb; memset(&lb, 0, sizeof(lb));
  if( bCategory ){
    PsStr s = ps_pool_get(&cap->pool, t);
    xml_text(&lb, s.z, s.n);
  }else{
    const PsTrack *tr = bByTrack ? &cap->aTrack[t] : 0;
    const PsThread *th = &cap->aThread[tr ? tr->thread : t];
    char buf[512];
    if( th->processName ){ PsStr s = ps_pool_get(&cap->pool, th->processName); xml_text(&lb, s.z, s.n); }
    else{ ps_buf_puts(&lb, "pid "); ps_value_text(cap, &th->pid, buf, sizeof(buf)); xml_text(&lb, buf, strlen(buf)); }
    ps_buf_puts(&lb, " / ");
    if( tr && tr->kind!=PS_TRACK_THREAD && tr->name ){
      ps_track_text(cap, t, buf, sizeof(buf));
      xml_text(&lb, buf, strlen(buf));
    }else if( th->threadName ){ PsStr s = ps_pool_get(&cap->pool, th->threadName); xml_text(&lb, s.z, s.n); }
    else{ ps_buf_puts(&lb, "tid "); ps_value_text(cap, &th->tid, buf, sizeof(buf)); xml_text(&lb, buf, strlen(buf)); }
  }
  if( ps_buf_append(&lb, "", 1) ){ ps_buf_free(&lb); return 0; }
  return lb.z;
}

/* ---------------------------------------------------------------- samples */
/* A capture with stack samples (ext/stacks.h) is drawn from them: each sample adds its value to
** the path of frames from its stack's root to its leaf, under its thread's (or track's) frame. */
static int fl_has_samples(const PsCapture *cap, int *pbTime){
  const PsEvents *e = &cap->ev;
  int bAny = 0, bDur = 0;
  if( e->aStack==0 ) return 0;
  for(size_t r=0; r<e->n; r++){
    if( !(e->aFlags[r] & PS_EV_SAMPLE) || e->aStack[r]<0 ) continue;
    bAny = 1;
    if( e->aDur[r]!=PS_NULL64 ){ bDur = 1; break; }
  }
  *pbTime = bDur;
  return bAny;
}

typedef struct FlPair { uint32_t group; int32_t leaf; int64_t value; } FlPair;

/* The samples into f: values summed per (group, leaf frame) first (profiles repeat few stacks
** over many samples), then each distinct pair's frames from the root placed once. */
static int fl_samples(const PsCapture *cap, Fl *f, int32_t root, int eGroup, int bTime,
                      char **azLabel, size_t nLabel){
  const PsEvents *e = &cap->ev;
  size_t nh = 1024, nPair = 0;
  FlPair *a = 0; uint32_t *h = 0; int32_t *aChain = 0;
  int rc = -1;
  size_t nAlloc = 0;
  h = calloc(nh, sizeof(uint32_t));
  aChain = malloc((cap->nRec ? cap->nRec : 1) * sizeof(int32_t));
  if( h==0 || aChain==0 ) goto out;
  for(size_t r=0; r<e->n; r++){
    int32_t leaf = e->aStack[r];
    if( !(e->aFlags[r] & PS_EV_SAMPLE) || leaf<0 || (size_t)leaf>=cap->nRec ) continue;
    int64_t v = bTime ? (e->aDur[r]!=PS_NULL64 && e->aDur[r]>0 ? e->aDur[r] : 0) : (e->aWeight ? e->aWeight[r] : 1);
    uint32_t g = eGroup==PS_FLAME_MERGED ? 0 : eGroup==PS_FLAME_TRACK ? e->aTrack[r] : e->aThread[r];
    if( (nPair+1)*2 > nh ){
      size_t nh2 = nh*2;
      uint32_t *h2 = calloc(nh2, sizeof(uint32_t));
      if( h2==0 ) goto out;
      for(size_t k=0; k<nPair; k++){
        size_t j = (size_t)(((uint64_t)a[k].group*0x9E3779B97F4A7C15ull ^ (uint64_t)(uint32_t)a[k].leaf*0xC2B2AE3D27D4EB4Full) >> 20) & (nh2-1);
        while( h2[j] ) j = (j+1) & (nh2-1);
        h2[j] = (uint32_t)k + 1;
      }
      free(h); h = h2; nh = nh2;
    }
    size_t j = (size_t)(((uint64_t)g*0x9E3779B97F4A7C15ull ^ (uint64_t)(uint32_t)leaf*0xC2B2AE3D27D4EB4Full) >> 20) & (nh-1);
    while( h[j] && !(a[h[j]-1].group==g && a[h[j]-1].leaf==leaf) ) j = (j+1) & (nh-1);
    if( h[j]==0 ){
      if( ps_grow((void**)&a, sizeof(FlPair), &nAlloc, nPair+1) ) goto out;
      a[nPair].group = g; a[nPair].leaf = leaf; a[nPair].value = 0;
      h[j] = (uint32_t)++nPair;
    }
    fl_add(&a[h[j]-1].value, v);
  }
  for(size_t k=0; k<nPair; k++){
    int32_t parentNode = root;
    if( eGroup!=PS_FLAME_MERGED && a[k].group < nLabel ){
      uint32_t g = a[k].group;
      if( azLabel[g]==0 && (azLabel[g] = fl_group_label(cap, 0, eGroup==PS_FLAME_TRACK, g))==0 ) goto out;
      parentNode = fl_child(f, root, g, 1);
      if( parentNode<0 ) goto out;
    }
    /* the frames from the leaf up (a parent walk never repeats a record: at most nRec steps) */
    size_t nChain = 0;
    for(int32_t x = a[k].leaf; x>=0 && nChain<cap->nRec; x = cap->aRec[x].parent) aChain[nChain++] = x;
    while( nChain>0 ){
      parentNode = fl_child(f, parentNode, cap->aRec[aChain[--nChain]].name, 0);
      if( parentNode<0 ) goto out;
    }
    fl_add(&f->a[parentNode].value, a[k].value);
  }
  rc = 0;
out:
  free(a); free(h); free(aChain);
  return rc;
}

int ps_flame_svg(const PsCapture *capc, int eGroup, const char *zTitle, PsBuf *out,
                 PsFlameInfo *pInfo, PsErr *err){
  PsCapture *cap = (PsCapture*)capc;
  Fl f; memset(&f, 0, sizeof(f));
  char **azThread = 0; size_t nThreadLabel = 0;
  int32_t *aNode = 0;          /* row -> trie node */
  size_t *aChain = 0;          /* rows of the walk up to a placed ancestor */
  int rc = PS_NOMEM;
  int bTime = 1;
  int bSamples = fl_has_samples(cap, &bTime);
  int bWeighted = bSamples && !bTime && cap->ev.aWeight!=0;
  const char *zUnit = bWeighted ? "weight" : "samples";
  /* the tree drawn: the samples' stacks; else timer/statistics records (a capture whose records
  ** are stack frames without samples draws its slices when it has any); else the slices */
  int bSlices = 0, bRecTime = 0;
  for(size_t r=0; r<cap->ev.n && !bSlices; r++){
    bSlices = (cap->ev.aFlags[r] & PS_EV_SLICE) && cap->ev.aDur[r]!=PS_NULL64;
  }
  int bRec = !bSamples && cap->nRec && (cap->ev.aStack==0 || !bSlices);
  for(size_t r=0; bRec && r<cap->nRec && !bRecTime; r++){
    bRecTime = cap->aRec[r].self!=PS_NULL64 || cap->aRec[r].time!=PS_NULL64;
  }
  /* stack frames whose samples carry no time (an evented speedscope profile in 'none' units):
  ** widths are their counts */
  int bRecCount = bRec && !bRecTime && cap->ev.aStack!=0;
  if( bRecCount ) bTime = 0;
  int32_t root = fl_child(&f, -1, 0, 0);
  if( root<0 ) goto out;
  size_t nRows = bSamples ? 0 : bRec ? cap->nRec : cap->ev.n;
  aNode = malloc((nRows ? nRows : 1) * sizeof(int32_t));
  if( aNode==0 ) goto out;
  int bByTrack = eGroup==PS_FLAME_TRACK && !bRec;   /* label key: a track, else a thread */
  if( eGroup!=PS_FLAME_MERGED ){
    size_t nLab = bRec ? cap->pool.n + 1 : bByTrack ? cap->nTrack : cap->nThread;
    azThread = calloc(nLab ? nLab : 1, sizeof(char*));
    if( azThread==0 ) goto out;
    nThreadLabel = nLab;
  }
  if( bSamples && fl_samples(cap, &f, root, eGroup, bTime, azThread, nThreadLabel) ) goto out;
  /* rows in an order where parents come first: file order, with unresolved parents looked up
  ** on demand (a parent later in the file is placed first by the recursion below) */
  /* aNode: -1 not yet placed, -3 on the chain being walked, -2 not a frame (no extent) */
  for(size_t r=0; r<nRows; r++) aNode[r] = -1;
  aChain = malloc((nRows ? nRows : 1) * sizeof(size_t));
  if( aChain==0 ) goto out;
  for(size_t r0=0; r0<nRows; r0++){
    /* walk up to the first placed ancestor (or a root, or a row already on this walk: a parent
    ** cycle, whose first row then starts the stack), then place the chain top down */
    size_t nChain = 0;
    size_t r = r0;
    while( aNode[r]==-1 ){
      int keep = bRec ? 1 : ((cap->ev.aFlags[r] & PS_EV_SLICE) && cap->ev.aDur[r]!=PS_NULL64);
      if( !keep ){ aNode[r] = -2; break; }
      aNode[r] = -3;
      aChain[nChain++] = r;
      int32_t p = bRec ? cap->aRec[r].parent : cap->ev.aParent[r];
      if( p<0 ) break;
      r = (size_t)p;
    }
    while( nChain>0 ){
      size_t x = aChain[--nChain];
      int32_t p = bRec ? cap->aRec[x].parent : cap->ev.aParent[x];
      int32_t parentNode;
      if( p>=0 && aNode[p]>=0 ) parentNode = aNode[p];
      else if( eGroup!=PS_FLAME_MERGED ){
        uint32_t t = bRec ? cap->aRec[x].category : bByTrack ? cap->ev.aTrack[x] : cap->ev.aThread[x];
        if( t >= nThreadLabel ){ parentNode = root; }
        else{
          if( azThread[t]==0 && (azThread[t] = fl_group_label(cap, bRec, bByTrack, t))==0 ) goto out;
          parentNode = fl_child(&f, root, t, 1);
          if( parentNode<0 ) goto out;
        }
      }else parentNode = root;
      uint32_t nm = bRec ? cap->aRec[x].name : cap->ev.aName[x];
      int32_t node = fl_child(&f, parentNode, nm, 0);
      if( node<0 ) goto out;
      aNode[x] = node;
    }
  }
  /* self time into each node */
  if( bSamples ){
    /* fl_samples put each stack's value on its leaf node */
  }else if( bRec ){
    for(size_t r=0; r<nRows; r++){
      if( aNode[r]<0 ) continue;
      int64_t s = bRecCount ? cap->aRec[r].count
                : cap->aRec[r].self!=PS_NULL64 ? cap->aRec[r].self : cap->aRec[r].time;
      if( s>0 ) fl_add(&f.a[aNode[r]].value, s);
    }
  }else{
    for(size_t r=0; r<nRows; r++){
      if( aNode[r]<0 ) continue;
      fl_add(&f.a[aNode[r]].value, cap->ev.aDur[r]);
      int32_t p = cap->ev.aParent[r];
      if( p>=0 && aNode[p]>=0 ) fl_add(&f.a[aNode[p]].value, -cap->ev.aDur[r]);
    }
    for(size_t i=0; i<f.n; i++) if( f.a[i].value<0 ) f.a[i].value = 0;   /* overlapping children */
  }
  /* inclusive: children were created after their parents, so a reverse pass sums upwards */
  for(size_t i=f.n; i-- > 1; ) fl_add(&f.a[f.a[i].parent].value, f.a[i].value);
  /* layout: depth-first, children by value (largest first) */
  int64_t total = f.a[root].value;
  if( pInfo ){ pInfo->total = total; pInfo->bTime = bTime; pInfo->bWeighted = bWeighted; }
  int maxDepth = 0;
  {
    /* depth of each node (parents precede children) */
    int32_t *aDepth = malloc(f.n * sizeof(int32_t));
    double *aX = malloc(f.n * sizeof(double));
    int32_t *aStack = malloc(f.n * sizeof(int32_t));
    if( aDepth==0 || aX==0 || aStack==0 ){ free(aDepth); free(aX); free(aStack); goto out; }
    aDepth[root] = 0; aX[root] = 0;
    for(size_t i=1; i<f.n; i++){ aDepth[i] = aDepth[f.a[i].parent] + 1; if( aDepth[i]>maxDepth ) maxDepth = aDepth[i]; }
    const double W = 1200.0, H = 17.0, pad = 10.0;
    double height = (maxDepth + 1) * H + 60;
    int bad = ps_buf_printf(out,
      "<?xml version=\"1.0\" standalone=\"no\"?>\n"
      "<svg version=\"1.1\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" xmlns=\"http://www.w3.org/2000/svg\">\n"
      "<style>text{font-family:Verdana,sans-serif;font-size:11px;fill:#000;pointer-events:none}"
      "rect{stroke:#fff;stroke-width:0.5}g:hover rect{stroke:#000;stroke-width:1}</style>\n"
      "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#f8f8f8\"/>\n"
      "<text x=\"%.0f\" y=\"22\" style=\"font-size:15px\">", W + 2*pad, height, W + 2*pad, height, pad);
    PsBuf tb; memset(&tb, 0, sizeof(tb));
    xml_text(&tb, zTitle, strlen(zTitle));
    bad |= ps_buf_append(out, tb.z ? tb.z : "", tb.n);
    ps_buf_free(&tb);
    if( bTime ) bad |= ps_buf_printf(out, " — %.3f ms in all (width = time, hover a frame)</text>\n", total/1e6);
    else bad |= ps_buf_printf(out, " — %lld %s in all (width = %s, hover a frame)</text>\n",
                              (long long)total, zUnit, bWeighted ? "sample weight" : "samples");
    /* DFS with an explicit stack; each child's x = parent's x + the widths of its elder siblings */
    int nSt = 0;
    aStack[nSt++] = root;
    while( nSt>0 && !bad ){
      int32_t i = aStack[--nSt];
      FNode *x = &f.a[i];
      double w = total>0 ? (double)x->value / (double)total * W : 0;
      if( w >= 0.1 ){
        double y = 34 + aDepth[i] * H;
        PsBuf lab; memset(&lab, 0, sizeof(lab));
        if( i==root ) ps_buf_puts(&lab, "all");
        else fl_label(cap, x, azThread, &lab);
        double share = total>0 ? 100.0 * (double)x->value / (double)total : 0;
        /* a warm colour from the name's hash, as flamegraph.pl does */
        uint64_t h = ps_hash(lab.z ? lab.z : "", lab.n);
        int rr = 205 + (int)(h % 50), gg = (int)((h >> 8) % 180) + 40, bb = (int)((h >> 16) % 55);
        if( x->bThread ){ rr = 160; gg = 190; bb = 230; }
        if( i==root ){ rr = 230; gg = 230; bb = 230; }
        bad |= ps_buf_printf(out, "<g><title>");
        bad |= ps_buf_append(out, lab.z, lab.n);
        if( bTime ) bad |= ps_buf_printf(out, " — %.3f ms (%.2f%%)", x->value/1e6, share);
        else bad |= ps_buf_printf(out, " — %lld %s (%.2f%%)", (long long)x->value, zUnit, share);
        bad |= ps_buf_printf(out, "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"rgb(%d,%d,%d)\"/>",
                             pad + aX[i], y, w, H - 1, rr, gg, bb);
        if( w > 30 ){
          /* as many characters as fit (about 6.5 px each) */
          size_t nFit = (size_t)((w - 6) / 6.5);
          bad |= ps_buf_printf(out, "<text x=\"%.2f\" y=\"%.1f\">", pad + aX[i] + 3, y + H - 5);
          if( lab.n <= nFit ) bad |= ps_buf_append(out, lab.z, lab.n);
          else if( nFit > 2 ){
            size_t k = nFit - 2;
            while( k>0 && ((unsigned char)lab.z[k] & 0xC0)==0x80 ) k--;      /* whole UTF-8 chars */
            while( k>0 && lab.z[k-1]=='&' ) k--;
            const char *amp = memchr(lab.z, '&', k);                          /* no cut entity */
            if( amp ){ const char *semi = memchr(amp, ';', (size_t)(lab.z + lab.n - amp)); if( semi && (size_t)(semi - lab.z) >= k ) k = (size_t)(amp - lab.z); }
            bad |= ps_buf_append(out, lab.z, k) | ps_buf_puts(out, "..");
          }
          bad |= ps_buf_puts(out, "</text>");
        }
        bad |= ps_buf_puts(out, "</g>\n");
        ps_buf_free(&lab);
        /* children, largest first: push in ascending order */
        int nKids = 0;
        for(int32_t c = x->firstChild; c>=0; c = f.a[c].nextSibling) nKids++;
        if( nKids ){
          int32_t *aK = malloc((size_t)nKids * sizeof(int32_t));
          if( aK==0 ){ bad = 1; break; }
          int k = 0;
          for(int32_t c = x->firstChild; c>=0; c = f.a[c].nextSibling) aK[k++] = c;
          /* insertion sort by value desc (siblings are few) */
          for(int a=1; a<nKids; a++){ int32_t t = aK[a]; int b2 = a; while( b2>0 && f.a[aK[b2-1]].value < f.a[t].value ){ aK[b2] = aK[b2-1]; b2--; } aK[b2] = t; }
          double cx = aX[i];
          for(int a=0; a<nKids; a++){ aX[aK[a]] = cx; cx += total>0 ? (double)f.a[aK[a]].value / (double)total * W : 0; }
          for(int a=nKids; a-- > 0; ) aStack[nSt++] = aK[a];
          free(aK);
        }
      }
    }
    bad |= ps_buf_puts(out, "</svg>\n");
    free(aDepth); free(aX); free(aStack);
    if( bad ) goto out;
  }
  rc = PS_OK;
out:
  if( rc==PS_NOMEM ) ps_nomem(err);
  if( azThread ){ for(size_t i=0; i<nThreadLabel; i++) free(azThread[i]); free(azThread); }
  free(aNode); free(aChain); free(f.a); free(f.aHash);
  return rc;
}
