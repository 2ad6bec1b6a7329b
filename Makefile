# muonlab - top-level build.  `make deps` installs what the project needs (Debian), `make` builds
# core/libmuon.a, the MEX gateways and (when nvcc is found) libmuon_cuda.so; `make check` runs
# every test layer and ends with one line "N passed, N failed".
#
# Switches: CUDA ?= auto (auto|0|1), MKOCTFILE ?= mkoctfile, OCTAVE ?= octave-cli.

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
WARN       := -Wall -Wextra -Wno-unused-parameter
CFLAGS_CORE = -std=c99 -O3 -fPIC -ffp-contract=off $(WARN) -Icore/include -Icore
SAN        := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDLIBS     := $(BLAS_LIBS) -lm -ldl

B          := build
CORE_SRC   := $(wildcard core/*.c)
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
            fonts-freefont-otf ghostscript libdnnl-dev gcc make

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

#---- core -----------------------------------------------------------------------------------

$(B)/obj/%.o: core/%.c $(CORE_HDR) | $(B)/obj
	$(CC) $(CFLAGS_CORE) -c $< -o $@

$(B)/asan/%.o: core/%.c $(CORE_HDR) | $(B)/asan
	$(CC) $(CFLAGS_CORE) -O1 -g $(SAN) -c $< -o $@

$(LIB): $(CORE_OBJ)
	ar rcs $@ $^

$(LIB_ASAN): $(ASAN_OBJ)
	ar rcs $@ $^

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

$(B)/obj/muon_mex_comm.o: mex/muon_mex_comm.c mex/muon_mex_comm.h mex/muon_mex.h $(CORE_HDR) | $(B)/obj
	$(MKOCTFILE) --mex -Icore/include -Icore -c $< -o $@

# gateways that take a communicator
$(MEXDIR)/__zero_muon_step__.mex: $(B)/obj/muon_mex_comm.o

$(MEXDIR)/%.mex: mex/%.c $(B)/obj/muon_mex.o $(LIB) mex/muon_mex.h | $(MEXDIR)
	$(MKOCTFILE) --mex -Icore/include -Icore -o $@ $< $(B)/obj/muon_mex.o \
	  $(filter $(B)/obj/muon_mex_comm.o,$^) $(LIB) $(LDLIBS)

#---- tests ----------------------------------------------------------------------------------

$(B)/tests/%: tests/c/%.c tests/c/harness.h $(LIB_ASAN) | $(B)/tests
	$(CC) -std=c99 -O1 -g $(SAN) $(WARN) -Icore/include -Icore -Itests/c $< $(LIB_ASAN) \
	  $(LDLIBS) -o $@

RESULTS := $(B)/results

check: deps all $(CTESTS)
	@rm -rf $(RESULTS) && mkdir -p $(RESULTS)
	@$(MAKE) --no-print-directory check-c || true
	@$(MAKE) --no-print-directory check-octave || true
	@$(MAKE) --no-print-directory check-dist || true
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
	cd tests/bench && $(OCTAVE) $(OCTFLAGS) --eval "bench_ns"

dist:
	tests/make_dist.sh $(VERSION)

clean:
	rm -rf $(B) muonlab-*.tar.gz
