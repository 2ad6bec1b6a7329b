/* muon_zero.h - part of the public C API (included by muon.h). */
#ifndef MUON_ZERO_H
#define MUON_ZERO_H

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
