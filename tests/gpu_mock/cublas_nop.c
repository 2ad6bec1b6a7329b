/* cublas_nop.c - the cuBLAS products of tests/gpu_mock/cuda_mock.cc's stand-in: each does
 * nothing and succeeds, or fails (status 13, CUBLAS_STATUS_EXECUTION_FAILED) when it is the
 * call MOCK_FAIL_AT picks.  Plain C without cuBLAS's headers, so one signature fits all. */
int mock_tick (const char *);
#define NOP(name) int name (void) { return mock_tick (#name) ? 13 : 0; }
NOP (cublasDgemmStridedBatched) NOP (cublasDgemm_v2) NOP (cublasDsyrk_v2) NOP (cublasGemmEx)
NOP (cublasGemmStridedBatchedEx) NOP (cublasSgemmStridedBatched) NOP (cublasSgemm_v2)
NOP (cublasSsyrk_v2)
