/* bf_judgebench.c — the bulk response judge alone: the best of 400 runs over one errors:false
 * response of 5000 OpenSearch-like "created" items (~950 KB), fed in 16 KiB reads as curl
 * delivers them. Prints "BYTES bytes, best MS ms". Built and run by bench/judge-cost.sh. */
#include "bf_bulkresp.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec/1e9;}
int main(void){
  size_t cap=2<<20; char *b=malloc(cap); size_t n=0;
  n+=sprintf(b+n,"{\"took\":12,\"errors\":false,\"items\":[");
  for(int i=0;i<5000;i++) n+=sprintf(b+n,"%s{\"create\":{\"_index\":\"bench-sink\",\"_id\":\"cv0b8m6k%012d\",\"_version\":1,\"result\":\"created\",\"_shards\":{\"total\":1,\"successful\":1,\"failed\":0},\"_seq_no\":%d,\"_primary_term\":1,\"status\":201}}",i?",":"",i,i);
  n+=sprintf(b+n,"]}");
  bf_bulk_counts_t c; char e[256]; double best=1e9;
  for(int r=0;r<400;r++){ double t0=now(); bf_bulkresp_stream_t st; bf_bulkresp_stream_init(&st,5000,NULL);
    for(size_t o=0;o<n;o+=16384){ size_t k=n-o<16384?n-o:16384; bf_bulkresp_stream_feed(&st,b+o,k);} 
    int rc=bf_bulkresp_stream_finish(&st,&c,e,sizeof e); double t=now()-t0; if(rc||c.ok!=5000){printf("bad %d %s\n",rc,e);return 1;} if(t<best)best=t;}
  printf("%zu bytes, best %.3f ms\n", n, best*1e3); return 0;}
