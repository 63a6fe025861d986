/*
** pprof.h — the schema of pprof's perftools.profiles.Profile as a pb.h table (defined in
** ext/pprof.c, which reads the format), for the protobuf detection of ext/xprof.c
** (ps_protobuf_detect scores it with pb_fit among the other known messages).
*/
#ifndef PS_PPROF_H
#define PS_PPROF_H

#include "pb.h"

/* perftools.profiles.Profile, field for field as github.com/google/pprof proto/profile.proto
** declares it (with Profile.doc_url = 15 and Line.column = 3). */
extern const PbMsgDef pb_pprof_Profile;

#endif
