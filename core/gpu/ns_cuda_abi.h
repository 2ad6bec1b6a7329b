/* ns_cuda_abi.h - the ABI between libmuon (CPU, always built) and libmuon_cuda.so (CUDA, cuBLAS,
 * NCCL; built when nvcc is found and opened with dlopen on first use, the way ggml loads its
 * back ends).  Nothing here includes a CUDA header, so libmuon.a and the MEX files never link
 * CUDA.  The shared object exports one symbol, muon_cuda_get_api; every entry returns a
 * muon_status and writes a message into msg (len bytes) on failure.
 */
#ifndef MUON_NS_CUDA_ABI_H
#define MUON_NS_CUDA_ABI_H

#include "muon_math.h"
#include "plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MUON_CUDA_ABI 1

typedef struct muon_cuda_api {
  int abi;  // MUON_CUDA_ABI of the shared object
  // [out] *count devices; [out] name: device 0's name and compute capability.  NODEVICE when
  // the driver or a device is missing.
  muon_status (*device_query) (int *count, char *name, size_t len);
  // [in,out] *state: per-context device state (cuBLAS handle, stream, buffers), created on
  // first use.  G and X are host tensors; coef is steps x 3 (already expanded).
  muon_status (*ns) (void **state, const muon_tensor *G, muon_tensor *X,
                     const muon_ns_opts *o, const double *coef, int steps, char *msg,
                     size_t len);
  // Frees a state made by ns (NULL is fine).
  void (*release) (void *state);
} muon_cuda_api;

// Exported by libmuon_cuda.so, a muon_plugin_entry_fn (plugin.h): [out] api, a
// muon_cuda_api.  MUON_ERR_NOTBUILT on an ABI mismatch.
muon_status muon_cuda_get_api (int abi, void *api);

#ifdef __cplusplus
}
#endif
#endif
