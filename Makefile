# muonlab - top-level build.  `make deps` installs what the project needs (Debian), `make` builds
# core/libmuon.a, the MEX gateways and (when nvcc is found) libmuon_cuda.so; `make check` runs
# every test layer and ends with one line "N passed, N failed".
#
# Switches: CUDA ?= auto (auto|0|1), ONEDNN ?= auto (auto|0), MKOCTFILE ?= mkoctfile,
# OCTAVE ?= octave-cli.

SHELL      := /bin/bash
VERSION    := $(shell sed -n 's/^Version: *//p' DESCRIPTION)
MKOCTFILE  ?= mkoctfile
OCTAVE     ?= octave-cli
OCTFLAGS   := --no-gui --norc --silent --no-history
CUDA       ?= auto
NVCC       ?= $(shell command -v nvcc 2>/dev/null || (test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc))
CUDA_HOME  ?= $(if $(NVCC),$(patsubst %/bin/nvcc,%,$(NVCC)),/usr/local/cuda)
CUDA_ARCH  ?= -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90

CC         ?= gcc
BLAS_LIBS  ?= $(or $(shell $(MKOCTFILE) -p BLAS_LIBS 2>/dev/null),-lblas)
# oneDNN (the GEMM provider core/gemm_onednn.c): dnnl.h must compile and libdnnl link
ONEDNN     ?= auto
HAVE_DNNL  := $(if $(filter 0,$(ONEDNN)),,$(shell printf '\043include <dnnl.h>\nint main (void) { return dnnl_version () == 0; }\n' \
                | $(CC) -x c - -o /dev/null -ldnnl >/dev/null 2>&1 && echo 1))
DNNL_FLAGS := $(if $(HAVE_DNNL),-DMUON_HAVE_DNNL,)
DNNL_LIBS  := $(if $(HAVE_DNNL),-ldnnl,)
WARN       := -Wall -Wextra -Wno-unused-parameter
CFLAGS_CORE = -std=c99 -O3 -fPIC -ffp-contract=off $(WARN) -Icore/include -Icore $(DNNL_FLAGS)
SAN        := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDLIBS     := $(BLAS_LIBS) $(DNNL_LIBS) -lgomp -lm -ldl

B          := build
CORE_APART := core/comm_mpi.c core/comm_nccl_dev.c   # built apart: see the MPI and NCCL block
CORE_SRC   := $(filter-out $(CORE_APART),$(wildcard core/*.c))
CORE_HDR   := $(wildcard core/*.h core/include/*.h)
CORE_OBJ   := $(patsubst core/%.c,$(B)/obj/%.o,$(CORE_SRC))
ASAN_OBJ   := $(patsubst core/%.c,$(B)/asan/%.o,$(CORE_SRC))
LIB        := $(B)/libmuon.a
LIB_ASAN   := $(B)/libmuon_asan.a
GATEWAYS   := $(wildcard mex/__*__.c)
MEXDIR     := $(B)/mex
MEXES      := $(patsubst mex/%.c,$(MEXDIR)/%.mex,$(GATEWAYS))
CTESTS     := $(patsubst tests/c/%.c,$(B)/tests/%,$(wildcard tests/c/test_*.c))

ifeq ($(CUDA),0)
  HAVE_CUDA :=
else
  HAVE_CUDA := $(if $(NVCC),$(if $(wildcard core/*.cu),1,),)
endif
CUDA_LIB   := $(if $(HAVE_CUDA),$(MEXDIR)/libmuon_cuda.so,)

.PHONY: all deps probe check check-c check-octave check-dist demo bench dist clean
.DEFAULT_GOAL := all

all: probe $(LIB) $(MEXES) $(CUDA_LIB)

#---- set-up ---------------------------------------------------------------------------------

SUDO     := $(if $(filter 0,$(shell id -u)),,sudo)
DEB_PKGS := octave liboctave-dev openmpi-bin libopenmpi-dev libopenblas-dev gnuplot-nox \
            fonts-freefont-otf ghostscript libdnnl-dev gcc make valgrind

deps:
	@missing=$$(for p in $(DEB_PKGS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null \
	  | grep -q '^install ok installed' || echo $$p; done); \
	if [ -z "$$missing" ]; then echo "deps: all installed"; else \
	  echo "deps: installing $$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y \
	    --no-install-recommends $$missing; fi

probe:
	@echo "probe: $$(command -v $(MKOCTFILE) >/dev/null && echo '✓' || echo '✗') mkoctfile"
	@echo "probe: $(if $(HAVE_CUDA),✓ nvcc $(NVCC) (libmuon_cuda.so with cuBLAS),→ nvcc not found or CUDA=0: CUDA back end skipped)"
	@echo "probe: $$(test -f $(CUDA_HOME)/include/nccl.h && echo '✓ NCCL' || echo '→ NCCL not found: skipped')"
	@echo "probe: $$(command -v mpicc >/dev/null && echo '✓ MPI (mpicc)' || echo '→ MPI not found: skipped')"
	@echo "probe: $(if $(HAVE_DNNL),✓ oneDNN (dnnl.h + libdnnl): the default CPU GEMM provider,→ oneDNN not found or ONEDNN=0: CPU products fall back to OpenBLAS (make deps installs libdnnl-dev))"

#---- core -----------------------------------------------------------------------------------

$(B)/obj/%.o: core/%.c $(CORE_HDR) | $(B)/obj
	$(CC) $(CFLAGS_CORE) -c $< -o $@

$(B)/asan/%.o: core/%.c $(CORE_HDR) | $(B)/asan
	$(CC) $(CFLAGS_CORE) -O1 -g $(SAN) -c $< -o $@

# ns.c's elementwise passes and gemm.c's tiles are OpenMP loops (core/gemm.h)
$(B)/obj/ns.o $(B)/asan/ns.o $(B)/obj/gemm.o $(B)/asan/gemm.o: CFLAGS_CORE += -fopenmp

# gemm_onednn.c is a stub without oneDNN: rebuild it when the probe's answer changes
DNNL_STAMP := $(B)/onednn.$(if $(HAVE_DNNL),on,off)
$(B)/obj/gemm_onednn.o $(B)/asan/gemm_onednn.o: $(DNNL_STAMP)
$(DNNL_STAMP): | $(B)/obj
	@rm -f $(B)/onednn.on $(B)/onednn.off && touch $@

# (re)made from scratch, so that a file moved out of CORE_SRC leaves no stale member behind
$(LIB): $(CORE_OBJ)
	rm -f $@ && ar rcs $@ $^

$(LIB_ASAN): $(ASAN_OBJ)
	rm -f $@ && ar rcs $@ $^

$(B)/obj $(B)/asan $(B)/tests $(MEXDIR):
	mkdir -p $@

#---- CUDA back end (dlopen-ed, never linked into the MEX files) ------------------------------

$(MEXDIR)/libmuon_cuda.so: $(wildcard core/*.cu) $(CORE_HDR) | $(MEXDIR)
	$(NVCC) -O3 -std=c++17 $(CUDA_ARCH) -Xcompiler -fPIC -shared -Icore/include -Icore \
	  $(filter %.cu,$^) -o $@ -L$(CUDA_HOME)/lib64 -lcublas -lcudart \
	  -Xlinker -rpath=$(CUDA_HOME)/lib64

#---- MEX gateways ---------------------------------------------------------------------------

$(B)/obj/muon_mex.o: mex/muon_mex.c mex/muon_mex.h $(CORE_HDR) | $(B)/obj
	$(MKOCTFILE) --mex -Icore/include -Icore -c $< -o $@

$(MEXDIR)/%.mex: mex/%.c $(B)/obj/muon_mex.o $(LIB) mex/muon_mex.h | $(MEXDIR)
	$(MKOCTFILE) --mex -Icore/include -Icore -o $@ $< $(B)/obj/muon_mex.o $(LIB) $(LDLIBS)

#---- MPI and NCCL communicators --------------------------------------------------------------
# Switches: MPI ?= auto (auto|0), NCCL ?= auto (auto|0).  core/comm_mpi.c is kept out of
# libmuon.a: mpicc compiles it with -DMUON_HAVE_MPI into $(LIB_MPI) (without mpicc or with
# MPI=0, $(CC) compiles its stub, whose muon_comm_mpi_create returns MUON_ERR_NOTBUILT), and
# mex/muon_mex_comm.c with mpicc's flags.  Both are linked only into the gateways named in
# MPI_GATEWAYS, ahead of libmuon.a, so the other MEX files and the C tests never link MPI.
# core/comm_nccl_dev.c (CUDA runtime + NCCL) becomes libmuon_nccl.so beside the MEX files when
# nvcc and nccl.h are found; core/comm_nccl.c (in libmuon.a) dlopens it.  `make check-mpi`
# runs tests/mpi under mpirun -np 2 and -np 4 (skipped when mpirun is missing).
MPI          ?= auto
NCCL         ?= auto
MPICC        ?= mpicc
HAVE_MPI     := $(if $(filter 0,$(MPI)),,$(shell command -v $(MPICC) >/dev/null 2>&1 && echo 1))
MPI_CFLAGS   := $(if $(HAVE_MPI),-DMUON_HAVE_MPI $(shell $(MPICC) --showme:compile 2>/dev/null),)
MPI_LIBS     := $(if $(HAVE_MPI),$(shell $(MPICC) --showme:link 2>/dev/null),)
MPI_OBJDIR   := $(B)/$(if $(HAVE_MPI),mpi,nompi)
LIB_MPI      := $(B)/libmuon_mpi.a
MPI_GATEWAYS := __muon_comm__ __zero_muon_step__
MPI_MEXES    := $(filter $(patsubst %,$(MEXDIR)/%.mex,$(MPI_GATEWAYS)),$(MEXES))
NCCL_HOME    ?= $(CUDA_HOME)
HAVE_NCCL    := $(if $(filter 0,$(CUDA) $(NCCL)),,$(if $(NVCC),$(if $(wildcard $(NCCL_HOME)/include/nccl.h),1,),))
NCCL_LIB     := $(if $(HAVE_NCCL),$(MEXDIR)/libmuon_nccl.so,)

.PHONY: check-mpi
all: $(LIB_MPI) $(NCCL_LIB)

$(MPI_OBJDIR):
	mkdir -p $@

$(MPI_OBJDIR)/comm_mpi.o: core/comm_mpi.c $(CORE_HDR) | $(MPI_OBJDIR)
	$(if $(HAVE_MPI),$(MPICC),$(CC)) $(CFLAGS_CORE) $(if $(HAVE_MPI),-DMUON_HAVE_MPI,) -c $< -o $@

$(LIB_MPI): $(MPI_OBJDIR)/comm_mpi.o
	rm -f $@ && ar rcs $@ $^

$(MPI_OBJDIR)/muon_mex_comm.o: mex/muon_mex_comm.c mex/muon_mex_comm.h mex/muon_mex.h \
                               $(CORE_HDR) | $(MPI_OBJDIR)
	$(MKOCTFILE) --mex $(MPI_CFLAGS) -Icore/include -Icore -c $< -o $@

$(MPI_MEXES): $(MEXDIR)/%.mex: mex/%.c $(B)/obj/muon_mex.o $(MPI_OBJDIR)/muon_mex_comm.o \
                               $(LIB_MPI) $(LIB) mex/muon_mex.h mex/muon_mex_comm.h | $(MEXDIR)
	$(MKOCTFILE) --mex $(MPI_CFLAGS) -Icore/include -Icore -o $@ $< $(B)/obj/muon_mex.o \
	  $(MPI_OBJDIR)/muon_mex_comm.o $(LIB_MPI) $(LIB) $(MPI_LIBS) $(LDLIBS)

$(MEXDIR)/libmuon_nccl.so: core/comm_nccl_dev.c $(CORE_HDR) | $(MEXDIR)
	$(CC) -std=c99 -O2 -fPIC -shared -fvisibility=hidden $(WARN) -Icore/include -Icore \
	  -I$(NCCL_HOME)/include -I$(CUDA_HOME)/include $< -o $@ -L$(NCCL_HOME)/lib64 \
	  -L$(CUDA_HOME)/lib64 -lnccl -lcudart -Wl,--no-undefined \
	  -Wl,-rpath,$(NCCL_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64

MPI_CTEST := $(if $(HAVE_MPI),$(B)/tests/mpi/test_comm_mpi,)
$(B)/tests/mpi/test_comm_mpi: tests/mpi/test_comm_mpi.c tests/c/harness.h $(LIB_MPI) $(LIB)
	@mkdir -p $(@D)
	$(MPICC) -std=c99 -O1 -g $(WARN) -Icore/include -Icore -Itests/c $< $(LIB_MPI) $(LIB) \
	  $(LDLIBS) -o $@

check-mpi: all $(MPI_CTEST)
	@mkdir -p $(RESULTS); $(if $(HAVE_MPI),OCTAVE=$(OCTAVE) tests/mpi/run.sh $(RESULTS)/mpi \
	  $(MPI_CTEST),echo "mpi: built without MPI (no mpicc, or MPI=0): the mpi layer is skipped")

#---- tests ----------------------------------------------------------------------------------

$(B)/tests/%: tests/c/%.c tests/c/harness.h $(LIB_ASAN) | $(B)/tests
	$(CC) -std=c99 -O1 -g $(SAN) $(WARN) -Icore/include -Icore -Itests/c $< $(LIB_ASAN) \
	  $(LDLIBS) -o $@

RESULTS := $(B)/results

check: deps all $(CTESTS)
	@rm -rf $(RESULTS) && mkdir -p $(RESULTS)
	@$(MAKE) --no-print-directory check-c || true
	@$(MAKE) --no-print-directory check-octave || true
	@$(MAKE) --no-print-directory check-mpi || true
	@$(MAKE) --no-print-directory check-dist || true
	@for l in $(CHECK_HARD); do $(MAKE) --no-print-directory $$l || true; done
	@tests/summarize.sh $(RESULTS)

check-c: $(CTESTS)
	@mkdir -p $(RESULTS); tests/c/run.sh $(RESULTS)/c $(CTESTS)

check-octave: all
	@mkdir -p $(RESULTS); cd tests/octave && MUON_RESULTS=$(CURDIR)/$(RESULTS)/octave \
	  $(OCTAVE) $(OCTFLAGS) run_all.m

check-dist: dist
	@mkdir -p $(RESULTS); tests/dist_install.sh muonlab-$(VERSION).tar.gz $(RESULTS)/dist

#---- demos, benchmarks, package -------------------------------------------------------------

DEMO ?= zero2_muon_correctness    # make demo DEMO=train_mlp (or ns_precision_sweep) runs another
demo: deps all
	cd demo && $(OCTAVE) $(OCTFLAGS) --eval "$(DEMO)"

bench: all
	cd tests/bench && $(OCTAVE) $(OCTFLAGS) --eval "bench_ns; bench_mpi"

dist:
	tests/make_dist.sh $(VERSION)

clean:
	rm -rf $(B) muonlab-*.tar.gz

#---- GPU checks (tests/gpu; never part of make check) ----------------------------------------
# `make check-gpu` runs tests/gpu/run_gpu.m: muon_ns and muon_update with "Device", "cuda"
# against the CPU reference and the fp64 oracle, and a one-rank NCCL communicator; it ends with
# "N passed, N failed".  `make bench-gpu` times CUDA Newton-Schulz (tests/gpu/bench_gpu.m).
# Without a CUDA device (or with the CUDA back end not built) both print one line saying so and
# succeed.  `MUONLAB_GPU_SELFTEST=1 make check-gpu` runs the suites with the CPU as the device.
.PHONY: check-gpu bench-gpu

check-gpu: all
	@cd tests/gpu && $(OCTAVE) $(OCTFLAGS) run_gpu.m

bench-gpu: all
	@cd tests/gpu && $(OCTAVE) $(OCTFLAGS) --eval "bench_gpu;"

#---- memory and fuzz layers (tests/valgrind, tests/fuzz; never need a GPU) ------------------
# `make check-valgrind` runs tests/valgrind/gateways.m (every MEX gateway: its success paths,
# every output count, every error path) in one octave-cli session under valgrind memcheck,
# with full leak checking and the named suppressions of tests/valgrind/muonlab.supp.  Layer
# "valgrind": one test per gateway (its checks pass, and no invalid access, uninitialised use
# or definite leak has a frame in its code) plus one for the session.  About 20-60 s here;
# MUON_VALGRIND_TIMEOUT (s, default 300) bounds it.  valgrind.log stays in build/valgrind.
# `make check-fuzz` calls the public functions with FUZZ_CALLS (3000) malformed argument
# lists from FUZZ_SEED (13) in a child octave-cli (tests/fuzz/fuzz_public.m; a crash or hang
# fails it); every rejection must be a muonlab:* error or Octave's usage error.  Layer
# "fuzz": one test per function plus one for the session; FUZZ_SECONDS (50) bounds the
# calls, MUON_FUZZ_TIMEOUT (120) the child.  The failing calls stay in build/fuzz.
CHECK_HARD := check-valgrind check-fuzz
.PHONY: $(CHECK_HARD)

check-valgrind: all
	@mkdir -p $(RESULTS); OCTAVE=$(OCTAVE) tests/valgrind/run.sh $(RESULTS)/valgrind $(B)/valgrind

check-fuzz: all
	@mkdir -p $(RESULTS); OCTAVE=$(OCTAVE) tests/fuzz/run.sh $(RESULTS)/fuzz $(B)/fuzz
