/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* cublas_nop.c - the cuBLAS products of tests/gpu_mock/cuda_mock.cc's stand-in: each checks
 * its sizes and leading dimensions as cuBLAS documents them (m, n, k, batch >= 0; lda >=
 * max (1, rows of op (A) as stored), ldb likewise, ldc >= max (1, m)) and returns
 * CUBLAS_STATUS_INVALID_VALUE (7) where one is wrong, as cuBLAS does, else does nothing and
 * succeeds, or fails (status 13, CUBLAS_STATUS_EXECUTION_FAILED) when it is the call
 * MOCK_FAIL_AT picks.  Plain C without cuBLAS's headers: the enums are ints (CUBLAS_OP_N
 * is 0), the handle, scalars and arrays pointers, the strides long long. */
int mock_tick (const char *);

static int bad_ld (long ld, long rows) { return ld < (rows > 1 ? rows : 1); }

/* op (A) is m x k, op (B) k x n, C m x n; A stored m x k (N) or k x m (T) */
static int bad_gemm (int ta, int tb, int m, int n, int k, int lda, int ldb, int ldc)
{
  return m < 0 || n < 0 || k < 0 || bad_ld (lda, ta == 0 ? m : k)
         || bad_ld (ldb, tb == 0 ? k : n) || bad_ld (ldc, m);
}

static int status (const char *who, int bad) { return bad ? 7 : mock_tick (who) ? 13 : 0; }

int cublasDgemm_v2 (void *h, int ta, int tb, int m, int n, int k, const void *al, const void *A,
                    int lda, const void *B, int ldb, const void *be, void *C, int ldc)
{
  return status (__func__, bad_gemm (ta, tb, m, n, k, lda, ldb, ldc));
}

int cublasSgemm_v2 (void *h, int ta, int tb, int m, int n, int k, const void *al, const void *A,
                    int lda, const void *B, int ldb, const void *be, void *C, int ldc)
{
  return status (__func__, bad_gemm (ta, tb, m, n, k, lda, ldb, ldc));
}

/* C (n x n) = alpha op (A) op (A)' + beta C, op (A) n x k */
static int bad_syrk (int tr, int n, int k, int lda, int ldc)
{
  return n < 0 || k < 0 || bad_ld (lda, tr == 0 ? n : k) || bad_ld (ldc, n);
}

int cublasDsyrk_v2 (void *h, int uplo, int tr, int n, int k, const void *al, const void *A,
                    int lda, const void *be, void *C, int ldc)
{
  return status (__func__, bad_syrk (tr, n, k, lda, ldc));
}

int cublasSsyrk_v2 (void *h, int uplo, int tr, int n, int k, const void *al, const void *A,
                    int lda, const void *be, void *C, int ldc)
{
  return status (__func__, bad_syrk (tr, n, k, lda, ldc));
}

int cublasDgemmStridedBatched (void *h, int ta, int tb, int m, int n, int k, const void *al,
                               const void *A, int lda, long long sa, const void *B, int ldb,
                               long long sb, const void *be, void *C, int ldc, long long sc,
                               int batch)
{
  return status (__func__, batch < 0 || bad_gemm (ta, tb, m, n, k, lda, ldb, ldc));
}

int cublasSgemmStridedBatched (void *h, int ta, int tb, int m, int n, int k, const void *al,
                               const void *A, int lda, long long sa, const void *B, int ldb,
                               long long sb, const void *be, void *C, int ldc, long long sc,
                               int batch)
{
  return status (__func__, batch < 0 || bad_gemm (ta, tb, m, n, k, lda, ldb, ldc));
}

int cublasGemmEx (void *h, int ta, int tb, int m, int n, int k, const void *al, const void *A,
                  int at, int lda, const void *B, int bt, int ldb, const void *be, void *C,
                  int ct, int ldc, int compute, int algo)
{
  return status (__func__, bad_gemm (ta, tb, m, n, k, lda, ldb, ldc));
}

int cublasGemmStridedBatchedEx (void *h, int ta, int tb, int m, int n, int k, const void *al,
                                const void *A, int at, int lda, long long sa, const void *B,
                                int bt, int ldb, long long sb, const void *be, void *C, int ct,
                                int ldc, long long sc, int batch, int compute, int algo)
{
  return status (__func__, batch < 0 || bad_gemm (ta, tb, m, n, k, lda, ldb, ldc));
}
