/* muon_comm.h - part of the public C API (included by muon.h). */
#ifndef MUON_COMM_H
#define MUON_COMM_H

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
