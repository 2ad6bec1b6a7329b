/* muon_update.h - part of the public C API (included by muon.h). */
#ifndef MUON_UPDATE_H
#define MUON_UPDATE_H

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
