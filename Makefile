# Copyright (C) 2026 muonlab developers
# SPDX-License-Identifier: GPL-3.0-or-later

# muonlab - top-level build.  `make deps` installs what the project needs (Debian), `make` builds
# build/libmuon.a, the MEX gateways and (when nvcc is found) libmuon_cuda.so; `make check` runs
# every test layer and ends with one line "N passed, N failed".
#
# Switches: ONEDNN (auto|0), CUDA (auto|0|1), MPI (auto|0), NCCL (auto|0), all auto by
# default.  One given on the command line (`make ONEDNN=0`) is remembered in $(B)/config.mk
# until changed (`make ONEDNN=auto` goes back to the default); one set in the environment
# counts for that run only.  `make probe` (part of `make all`) says what is in force and why.
# B ?= build (the build folder; `make B=dir` builds elsewhere, with its own config.mk),
# MKOCTFILE ?= mkoctfile, OCTAVE ?= octave-cli.

SHELL      := /bin/bash
VERSION    := $(shell sed -n 's/^Version: *//p' DESCRIPTION)

# The build folder: `make B=dir` (from the command line only: a stray B in the environment
# must not move the build, nor what `make clean` removes).
ifneq ($(origin B),command line)
  B := build
endif
ifeq ($(strip $(B)),)
  $(error B (the build folder) must not be empty)
endif

# Build switches, each resolved as: the command line, else the environment (that run only),
# else remembered in $(CONFIG), else auto.  A switch given on the command line is saved there
# (auto removes it), so that the next plain make, make demo or make check keeps it.
CONFIG          := $(B)/config.mk
SWITCHES        := ONEDNN CUDA MPI NCCL
ONEDNN_VALUES   := auto 0
CUDA_VALUES     := auto 0 1
MPI_VALUES      := auto 0
NCCL_VALUES     := auto 0
-include $(CONFIG)
define resolve_switch
ifeq ($$(origin $(1)),command line)
  $(1)_FROM := command line
else ifneq ($$(filter environment%,$$(origin $(1))),)
  $(1)_FROM := environment, this run only
else ifneq ($$(SAVED_$(1)),)
  $(1) := $$(SAVED_$(1))
  $(1)_FROM := remembered in $(CONFIG); make $(1)=auto forgets it
else
  $(1) := auto
  $(1)_FROM := default
endif
ifeq ($$(filter $$($(1)),$$($(1)_VALUES)),)
  $$(error $(1)=$$($(1)) ($$($(1)_FROM)): must be one of $$($(1)_VALUES))
endif
ifeq ($$(origin $(1))$$($(1)),command lineauto)
  $(1)_FROM := command line, the default again
else ifeq ($$(origin $(1)),command line)
  $(1)_FROM := command line, saved in $(CONFIG)
endif
endef
$(foreach s,$(SWITCHES),$(eval $(call resolve_switch,$(s))))
# what $(CONFIG) should hold: the command line's choices (but auto), else what it holds
saved_line = $(if $(filter command line,$(origin $(1))),$(if $(filter-out auto,$($(1))),SAVED_$(1) := $($(1))),$(if $(SAVED_$(1)),SAVED_$(1) := $(SAVED_$(1))))
CONFIG_NEW := $(foreach s,$(SWITCHES),$(call saved_line,$(s)))
CONFIG_OLD := $(foreach s,$(SWITCHES),$(if $(SAVED_$(s)),SAVED_$(s) := $(SAVED_$(s))))
ifneq ($(strip $(CONFIG_NEW)),$(strip $(CONFIG_OLD)))
  $(shell mkdir -p $(B))
  $(file >$(CONFIG),# build choices remembered by the Makefile (make SWITCH=value); make SWITCH=auto forgets one)
  $(foreach s,$(SWITCHES),$(if $(call saved_line,$(s)),$(file >>$(CONFIG),$(call saved_line,$(s)))))
endif
# $(call switch_note,NAME): the probe's note on a switch, e.g. "[ONEDNN=0: default]"
switch_note = [$(1)=$($(1)): $($(1)_FROM)]
# $(call stamp,NAME,ANSWER): $(B)/NAME.on or $(B)/NAME.off, made (and the other one removed)
# when the answer of a switch's probe changes: whatever depends on it is rebuilt then
stamp = $(B)/$(1).$(if $(2),on,off)

MKOCTFILE  ?= mkoctfile
OCTAVE     ?= octave-cli
OCTFLAGS   := --no-gui --norc --silent --no-history
NVCC       ?= $(shell command -v nvcc 2>/dev/null || (test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc))
CUDA_HOME  ?= $(if $(NVCC),$(patsubst %/bin/nvcc,%,$(NVCC)),/usr/local/cuda)
CUDA_ARCH  ?= -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90

CC         ?= gcc
BLAS_LIBS  ?= $(or $(shell $(MKOCTFILE) -p BLAS_LIBS 2>/dev/null),-lblas)
# oneDNN (the GEMM provider core/gemm/gemm_onednn.c): dnnl.h must compile and libdnnl link
HAVE_DNNL  := $(if $(filter 0,$(ONEDNN)),,$(shell printf '\043include <dnnl.h>\nint main (void) { return dnnl_version () == 0; }\n' \
                | $(CC) -x c - -o /dev/null -ldnnl >/dev/null 2>&1 && echo 1))
DNNL_FLAGS := $(if $(HAVE_DNNL),-DMUON_HAVE_DNNL,)
DNNL_LIBS  := $(if $(HAVE_DNNL),-ldnnl,)
WARN       := -Wall -Wextra -Wno-unused-parameter
CFLAGS_CORE = -std=c99 -O3 -fPIC -ffp-contract=off $(WARN) $(DNNL_FLAGS)
SAN        := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDLIBS     := $(BLAS_LIBS) $(DNNL_LIBS) -lgomp -lpthread -lm -ldl

# core/ has one folder per layer (DESIGN.md 2; README "Where things are"), bottom to top
# base < gemm < math < comm < zero < lists (lists: the catalogue of every layer's lists and
# limits, for the gateways), plus include/ (the public headers) and gpu/ (the sources
# of the dlopen-ed plug-ins libmuon_cuda.so and libmuon_nccl.so, never in libmuon.a).  A
# layer's files are compiled seeing include/, their own folder and the layers below
# (CORE_INC_<layer>); `make check-layers` checks every #include against the same order.
CORE_LAYERS   := base gemm math comm zero lists
CORE_INC_ALL  := base gemm math comm zero lists gpu
CORE_INC_base := base
CORE_INC_gemm := base gemm
CORE_INC_math := base gemm math gpu          # gpu/: ns_cuda_abi.h, the CUDA plug-in's ABI
CORE_INC_comm := base gemm math comm gpu     # gpu/: comm_nccl_abi.h
CORE_INC_zero := base gemm math comm zero
CORE_INC_lists := base gemm math comm zero lists
CORE_INC_gpu  := base math gpu               # math/: the host+device maths headers only
# $(call core_inc,LAYER): the -I flags of a layer's files
core_inc    = -Icore/include $(patsubst %,-Icore/%,$(CORE_INC_$(1)))
# the C tests reach into every layer (gemm.h, muon_precision.h, ...); the MEX files see only
# the public headers
TEST_INC   := -Icore/include $(patsubst %,-Icore/%,$(CORE_INC_ALL)) -Itests/c
MEX_INC    := -Icore/include
CORE_APART := core/comm/comm_mpi.c   # built apart: see the MPI and NCCL block
CORE_SRC   := $(filter-out $(CORE_APART),$(foreach d,$(CORE_LAYERS),$(wildcard core/$(d)/*.c)))
CORE_HDR   := $(wildcard core/include/*.h core/*/*.h)
CUDA_SRC   := $(wildcard core/gpu/*.cu)
CORE_OBJ   := $(patsubst core/%.c,$(B)/obj/%.o,$(CORE_SRC))
ASAN_OBJ   := $(patsubst core/%.c,$(B)/asan/%.o,$(CORE_SRC))
LIB        := $(B)/libmuon.a
LIB_ASAN   := $(B)/libmuon_asan.a
GATEWAYS   := $(wildcard mex/__*__.c)
MEXDIR     := $(B)/mex
MEXES      := $(patsubst mex/%.c,$(MEXDIR)/%.mex,$(GATEWAYS))
# test-only gateways (tests/mex/__*__.c: __muon_copy_out__ for the gateway memory tests):
# built by the test layers that use them into their own folder, never shipped
TEST_MEXDIR := $(B)/tests/mex
TEST_MEXES := $(patsubst tests/mex/%.c,$(TEST_MEXDIR)/%.mex,$(wildcard tests/mex/__*__.c))
# (and the C++ ones: test_ns_steps.cc runs the CUDA back end's order of operations,
# core/gpu/ns_cuda_steps.h, over loops with cuBLAS's semantics)
CTESTS     := $(patsubst tests/c/%.c,$(B)/tests/%,$(wildcard tests/c/test_*.c)) \
              $(patsubst tests/c/%.cc,$(B)/tests/%,$(wildcard tests/c/test_*.cc))

ifeq ($(CUDA),0)
  HAVE_CUDA :=
else
  HAVE_CUDA := $(if $(NVCC),$(if $(CUDA_SRC),1,),)
endif
CUDA_LIB   := $(if $(HAVE_CUDA),$(MEXDIR)/libmuon_cuda.so,)
CUDA_STAMP := $(call stamp,cuda,$(HAVE_CUDA))

.PHONY: all deps probe check check-layers check-c check-octave check-octave-2 check-octave-avx2 check-nodnnl check-tiers check-dist \
        demo bench dist clean distclean
.DEFAULT_GOAL := all

# all: everything a plain `make` builds; declared once, in the MPI and NCCL block below,
# after the variables it names

#---- set-up ---------------------------------------------------------------------------------

SUDO     := $(if $(filter 0,$(shell id -u)),,sudo)
DEB_PKGS := octave liboctave-dev openmpi-bin libopenmpi-dev libopenblas-dev gnuplot-nox \
            fonts-freefont-otf ghostscript libdnnl-dev gcc g++ make valgrind procps

deps:
	@missing=$$(for p in $(DEB_PKGS); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null \
	  | grep -q '^install ok installed' || echo $$p; done); \
	if [ -z "$$missing" ]; then echo "deps: all installed"; else \
	  echo "deps: installing $$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y \
	    --no-install-recommends $$missing; fi

# what is built, and why: each switch with where its value came from (command line, environment,
# remembered in $(CONFIG), default); CUDA=1 fails here when nvcc is missing.  QUIET_PROBE=1
# (given by make check to its sub-makes, which build nothing new) leaves out the report.
probe:
ifeq ($(QUIET_PROBE),)
	@echo "probe: build folder $(B)"
	@echo "probe: $$(command -v $(MKOCTFILE) >/dev/null && echo '✓' || echo '✗') mkoctfile"
	@echo "probe: $(if $(filter 0,$(ONEDNN)),→ oneDNN left out: CPU products use OpenBLAS,$(if $(HAVE_DNNL),✓ oneDNN (dnnl.h + libdnnl): the CPU GEMM provider where it has kernels,→ oneDNN not found: CPU products use OpenBLAS (make deps installs libdnnl-dev))) $(call switch_note,ONEDNN)"
	@echo "probe: $(if $(filter 0,$(CUDA)),→ CUDA back end left out,$(if $(HAVE_CUDA),✓ nvcc $(NVCC) (libmuon_cuda.so with cuBLAS),→ nvcc (or core/gpu/*.cu) not found: CUDA back end skipped)) $(call switch_note,CUDA)"
	@echo "probe: $(if $(filter 0,$(NCCL) $(CUDA)),→ NCCL left out (NCCL=0 or CUDA=0),$(if $(HAVE_NCCL),✓ NCCL ($(NCCL_HOME)/include/nccl.h: libmuon_nccl.so),→ NCCL (or nvcc) not found: skipped)) $(call switch_note,NCCL)"
	@echo "probe: $(if $(filter 0,$(MPI)),→ MPI left out,$(if $(HAVE_MPI),✓ MPI ($(MPICC)),→ MPI ($(MPICC)) not found: skipped)) $(call switch_note,MPI)"
endif
	@$(if $(filter 1,$(CUDA)),$(if $(HAVE_CUDA),true,echo "probe: CUDA=1 asks for the CUDA back end, but nvcc (or core/gpu/*.cu) was not found" >&2; exit 1),true)

#---- core -----------------------------------------------------------------------------------

# one rule for every layer: the stem is LAYER/name, and the layer picks the include flags
$(B)/obj/%.o: core/%.c $(CORE_HDR) | $(B)/obj
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_CORE) $(call core_inc,$(firstword $(subst /, ,$*))) -c $< -o $@

$(B)/asan/%.o: core/%.c $(CORE_HDR) | $(B)/asan
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_CORE) $(call core_inc,$(firstword $(subst /, ,$*))) -O1 -g $(SAN) -c $< -o $@

# ns.c's elementwise passes and gemm.c's tiles are OpenMP loops (core/gemm/gemm.h)
$(B)/obj/math/ns.o $(B)/asan/math/ns.o $(B)/obj/gemm/gemm.o $(B)/asan/gemm/gemm.o: CFLAGS_CORE += -fopenmp

# every core object is compiled with or without -DMUON_HAVE_DNNL (gemm_onednn.c is a stub
# without it): rebuild them when the probe's answer changes (the libraries, the MEX files and
# the C tests follow, since they depend on the objects)
DNNL_STAMP := $(call stamp,onednn,$(HAVE_DNNL))
$(CORE_OBJ) $(ASAN_OBJ): $(DNNL_STAMP)
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

# when the back end is switched off, a libmuon_cuda.so left from before would still be loaded
$(CUDA_STAMP): | $(MEXDIR)
	@rm -f $(B)/cuda.on $(B)/cuda.off $(if $(HAVE_CUDA),,$(MEXDIR)/libmuon_cuda.so) && touch $@

$(MEXDIR)/libmuon_cuda.so: $(CUDA_SRC) $(CORE_HDR) | $(MEXDIR)
	$(NVCC) -O3 -std=c++17 -fmad=false $(CUDA_ARCH) -Xcompiler -fPIC,-fvisibility=hidden \
	  -shared $(call core_inc,gpu) $(filter %.cu,$^) -o $@ -L$(CUDA_HOME)/lib64 -lcublas \
	  -lcudart -Xlinker -rpath=$(CUDA_HOME)/lib64 -Xlinker --no-undefined

#---- MEX gateways ---------------------------------------------------------------------------

# the glue every gateway links (muon_mex.h)
MEX_GLUE := $(B)/obj/muon_mex.o $(B)/obj/muon_mex_opts.o
$(MEX_GLUE): $(B)/obj/%.o: mex/%.c mex/muon_mex.h $(CORE_HDR) | $(B)/obj
	$(MKOCTFILE) --mex $(MEX_INC) -c $< -o $@

$(MEXDIR)/%.mex: mex/%.c $(MEX_GLUE) $(LIB) mex/muon_mex.h | $(MEXDIR)
	$(MKOCTFILE) --mex $(MEX_INC) -o $@ $< $(MEX_GLUE) $(GLUE_$*) $(LIB) $(LDLIBS)

$(TEST_MEXDIR)/%.mex: tests/mex/%.c $(MEX_GLUE) $(LIB) mex/muon_mex.h
	@mkdir -p $(@D)
	$(MKOCTFILE) --mex $(MEX_INC) -Imex -o $@ $< $(MEX_GLUE) $(LIB) $(LDLIBS)

# the glue of a gateway, linked only into it (GLUE_<gateway>; the ZeRO glue into __muon_gpu__ too)
GLUE___muon_zero_step__ := $(patsubst %,$(B)/obj/muon_mex_%.o,zero zero_step handle)
$(filter-out %handle.o,$(GLUE___muon_zero_step__)): $(B)/obj/%.o: mex/%.c mex/muon_mex_zero.h \
                            mex/muon_mex_comm.h \
                            mex/muon_mex.h $(CORE_HDR) | $(B)/obj
	$(MKOCTFILE) --mex $(MEX_INC) -c $< -o $@
$(MEXDIR)/__muon_zero_step__.mex: $(GLUE___muon_zero_step__) mex/muon_mex_zero.h \
                                  mex/muon_mex_handle.h

#---- MPI and NCCL communicators --------------------------------------------------------------
# Switches: MPI ?= auto (auto|0), NCCL ?= auto (auto|0).  core/comm/comm_mpi.c is kept out of
# libmuon.a: mpicc compiles it with -DMUON_HAVE_MPI into $(LIB_MPI) (without mpicc or with
# MPI=0, $(CC) compiles its stub, whose muon_comm_mpi_create returns MUON_ERR_NOTBUILT), and
# the communicator glue mex/muon_mex_{comm,coll,mpi}.c with mpicc's flags.  They are linked
# only into the gateways named in MPI_GATEWAYS, ahead of libmuon.a, so the other MEX files and
# the C tests never link MPI.
# core/gpu/comm_nccl_dev.c (CUDA runtime + NCCL) becomes libmuon_nccl.so beside the MEX files
# when nvcc and nccl.h are found; core/comm/comm_nccl.c (in libmuon.a) dlopens it.  `make check-mpi`
# runs tests/mpi under mpirun -np 2, -np 3 and -np 4 (skipped when mpirun is missing).
MPICC        ?= mpicc
HAVE_MPI     := $(if $(filter 0,$(MPI)),,$(shell command -v $(MPICC) >/dev/null 2>&1 && echo 1))
MPI_CFLAGS   := $(if $(HAVE_MPI),-DMUON_HAVE_MPI $(shell $(MPICC) --showme:compile 2>/dev/null),)
MPI_LIBS     := $(if $(HAVE_MPI),$(shell $(MPICC) --showme:link 2>/dev/null),)
MPI_OBJDIR   := $(B)/$(if $(HAVE_MPI),mpi,nompi)
LIB_MPI      := $(B)/libmuon_mpi.a
MPI_GATEWAYS := __muon_comm__ __muon_zero_step__ __muon_gpu__
MPI_MEXES    := $(filter $(patsubst %,$(MEXDIR)/%.mex,$(MPI_GATEWAYS)),$(MEXES))
NCCL_HOME    ?= $(CUDA_HOME)
HAVE_NCCL    := $(if $(filter 0,$(CUDA) $(NCCL)),,$(if $(NVCC),$(if $(wildcard $(NCCL_HOME)/include/nccl.h),1,),))
NCCL_LIB     := $(if $(HAVE_NCCL),$(MEXDIR)/libmuon_nccl.so,)
MPI_STAMP    := $(call stamp,mpi,$(HAVE_MPI))
NCCL_STAMP   := $(call stamp,nccl,$(HAVE_NCCL))

.PHONY: check-mpi
all: probe $(LIB) $(MEXES) $(CUDA_LIB) $(CUDA_STAMP) $(LIB_MPI) $(NCCL_LIB) $(NCCL_STAMP) \
     prune-mex

# a MEX file whose gateway left mex/ would stay
# on the tests' path and in the package: remove the ones no gateway makes
STALE_MEXES = $(filter-out $(MEXES),$(wildcard $(MEXDIR)/__*__.mex))
.PHONY: prune-mex
prune-mex:
	@$(if $(strip $(STALE_MEXES)),rm -f $(STALE_MEXES) && echo "removed stale $(notdir $(STALE_MEXES))",true)

# MPI_OBJDIR follows the answer, but its objects may be older than the archive: re-archive
# (and so relink the MPI gateways) when the answer changes.  A libmuon_nccl.so left from
# before NCCL was switched off would still be loaded: remove it.
$(LIB_MPI) $(MPI_OBJDIR)/comm_mpi.o: $(MPI_STAMP)
$(MPI_OBJDIR)/comm_mpi.o: $(DNNL_STAMP)
$(MPI_STAMP): | $(B)/obj
	@rm -f $(B)/mpi.on $(B)/mpi.off && touch $@
$(NCCL_STAMP): | $(MEXDIR)
	@rm -f $(B)/nccl.on $(B)/nccl.off $(if $(HAVE_NCCL),,$(MEXDIR)/libmuon_nccl.so) && touch $@

$(MPI_OBJDIR):
	mkdir -p $@

$(MPI_OBJDIR)/comm_mpi.o: core/comm/comm_mpi.c $(CORE_HDR) | $(MPI_OBJDIR)
	$(if $(HAVE_MPI),$(MPICC),$(CC)) $(CFLAGS_CORE) $(call core_inc,comm) $(if $(HAVE_MPI),-DMUON_HAVE_MPI,) -c $< -o $@

$(LIB_MPI): $(MPI_OBJDIR)/comm_mpi.o
	rm -f $@ && ar rcs $@ $(filter %.o,$^)

MEX_COMM_OBJ := $(patsubst %,$(MPI_OBJDIR)/muon_mex_%.o,comm coll mpi)
$(MEX_COMM_OBJ): $(MPI_OBJDIR)/%.o: mex/%.c mex/muon_mex_comm.h mex/muon_mex.h $(CORE_HDR) \
                 | $(MPI_OBJDIR)
	$(MKOCTFILE) --mex $(MPI_CFLAGS) $(MEX_INC) -c $< -o $@

# __muon_gpu__ holds the device arrays, so the device ZeRO step (muon_mex_zero_dev.c, with
# a communicator) runs there too (here, below MPI_OBJDIR: an immediate := expansion above its
# definition would put the object at /)
GLUE___muon_gpu__ := $(patsubst %,$(B)/obj/muon_mex_%.o,handle zero zero_step) \
                     $(MPI_OBJDIR)/muon_mex_zero_dev.o
$(B)/obj/muon_mex_handle.o: $(B)/obj/%.o: mex/%.c mex/muon_mex_handle.h mex/muon_mex.h \
                            $(CORE_HDR) | $(B)/obj
	$(MKOCTFILE) --mex $(MEX_INC) -c $< -o $@
$(MPI_OBJDIR)/muon_mex_zero_dev.o: mex/muon_mex_zero_dev.c mex/muon_mex_zero.h \
                  mex/muon_mex_comm.h mex/muon_mex_handle.h mex/muon_mex.h $(CORE_HDR) \
                  | $(MPI_OBJDIR)
	$(MKOCTFILE) --mex $(MPI_CFLAGS) $(MEX_INC) -c $< -o $@
$(MEXDIR)/__muon_gpu__.mex: $(GLUE___muon_gpu__) mex/muon_mex_handle.h mex/muon_mex_zero.h

$(MPI_MEXES): $(MEXDIR)/%.mex: mex/%.c $(MEX_GLUE) $(MEX_COMM_OBJ) \
                               $(LIB_MPI) $(LIB) mex/muon_mex.h mex/muon_mex_comm.h | $(MEXDIR)
	$(MKOCTFILE) --mex $(MPI_CFLAGS) $(MEX_INC) -o $@ $< $(MEX_GLUE) $(GLUE_$*) \
	  $(MEX_COMM_OBJ) $(LIB_MPI) $(LIB) $(MPI_LIBS) $(LDLIBS)

$(MEXDIR)/libmuon_nccl.so: core/gpu/comm_nccl_dev.c $(CORE_HDR) | $(MEXDIR)
	$(CC) -std=c99 -O2 -fPIC -shared -fvisibility=hidden $(WARN) $(call core_inc,gpu) \
	  -I$(NCCL_HOME)/include -I$(CUDA_HOME)/include $< -o $@ -L$(NCCL_HOME)/lib64 \
	  -L$(CUDA_HOME)/lib64 -lnccl -lcudart -Wl,--no-undefined \
	  -Wl,-rpath,$(NCCL_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64

MPI_CTEST := $(if $(HAVE_MPI),$(B)/tests/mpi/test_comm_mpi,)
$(B)/tests/mpi/test_comm_mpi: tests/mpi/test_comm_mpi.c $(wildcard tests/mpi/*.h) tests/c/harness.h $(LIB_MPI) $(LIB)
	@mkdir -p $(@D)
	$(MPICC) -std=c99 -O1 -g $(WARN) $(TEST_INC) $< $(LIB_MPI) $(LIB) \
	  $(LDLIBS) -o $@

# make bench's MPI collective timer (tests/bench/bench_comm_mpi.c, run by bench_cost.m)
BENCH_COMM := $(if $(HAVE_MPI),$(B)/tests/mpi/bench_comm_mpi,)
$(B)/tests/mpi/bench_comm_mpi: tests/bench/bench_comm_mpi.c $(LIB_MPI) $(LIB)
	@mkdir -p $(@D)
	$(MPICC) -std=c99 -O2 $(WARN) $(TEST_INC) $< $(LIB_MPI) $(LIB) $(LDLIBS) -o $@

check-mpi: all $(MPI_CTEST)
	@mkdir -p $(RESULTS); $(if $(HAVE_MPI),OCTAVE=$(OCTAVE) tests/mpi/run.sh $(RESULTS)/mpi \
	  $(MPI_CTEST),echo "mpi: built without MPI (no mpicc, or MPI=0): the mpi layer is skipped")

#---- tests ----------------------------------------------------------------------------------

$(B)/tests/%: tests/c/%.c $(wildcard tests/c/*.h) $(LIB_ASAN) | $(B)/tests
	$(CC) -std=c99 -O1 -g $(SAN) $(WARN) -pthread $(TEST_INC) $< $(LIB_ASAN) \
	  $(LDLIBS) -o $@

$(B)/tests/%: tests/c/%.cc $(wildcard tests/c/*.h) core/gpu/ns_cuda_steps.h core/gpu/ns_cuda_norm.h $(LIB_ASAN) \
              | $(B)/tests
	$(CXX) -std=c++17 -O1 -g $(SAN) $(WARN) -ffp-contract=off $(TEST_INC) $< $(LIB_ASAN) \
	  $(LDLIBS) -o $@

# Layers (one result file each in $(RESULTS), summed by tests/summarize.sh):
#   layers           the layer rules of core/ (tests/layers/run.sh: every #include against
#                    the order base < gemm < math < comm < zero < lists, include cycles, the calls
#                    between the objects of libmuon.a and the MPI object), and the checker
#                    failing on planted faults (an upward include, an upward call, ...)
#   c, octave        this build: the C tests (sanitized), run_all.m (suites + inst/ %! blocks)
#   octave-avx2      run_all.m again with the CPU capped to AVX2 (AVX2_ENV: oneDNN's ISA cap,
#                    under both its 2.x and 3.x names, and OpenBLAS's Haswell kernels), so an
#                    AVX-512 machine tests what an AVX2 machine runs
#   c-nodnnl, octave-nodnnl   a second build without oneDNN in $(NODNNL_B) (its own config.mk:
#                    this build's remembered choices are left alone), its C tests and run_all.m
#                    against its MEX files; skipped when this build has no oneDNN anyway
#   mpi, dist        tests/mpi under mpirun; pkg install of the tarball (built with this
#                    build's switches), load, every demo, re-install, and the tests of the
#                    installed package (a subset; DIST_FULL=1: all of pkg test)
#   gpu-selftest     check-gpu's suites (tests/gpu) with the CPU standing in for the GPU
#   gpu-mock         the CUDA plug-in built against a host-memory stand-in of the CUDA
#                    runtime and cuBLAS (tests/gpu_mock): memory accounting, out-of-memory
#                    paths and a fault-injection sweep; 0 tests without nvcc; and the NCCL
#                    plug-in against a one-rank NCCL stand-in (test_nccl_mock: results, a
#                    fault-injection sweep, nothing queued at return); 0 of those without
#                    nccl.h
# A layer listed in CHECK_LAYERS that wrote no result counts as a failure.
# CHECK_ONCE: the suites whose results do not depend on the CPU's product kernels or the
# oneDNN build (the demos, the README, the option tables and messages, layouts, plans,
# models, checkpoints' files): they run in the octave layer only, not again in octave-avx2
# and octave-nodnnl (2 x about 3 minutes on 2 cores saved; tests/octave/run_all.m's
# MUON_SKIP).
RESULTS      := $(B)/results
LAYER_SUFFIX :=
AVX2_ENV     := DNNL_MAX_CPU_ISA=AVX2 ONEDNN_MAX_CPU_ISA=AVX2 OPENBLAS_CORETYPE=Haswell
NODNNL_B     := $(B)/nodnnl
CHECK_ONCE   := test_demo_scripts,test_readme,test_demos,test_display,test_messages,test_docs,$\
                test_options,test_options_parse,test_zero_layout,test_zero_cost,test_checkpoint,$\
                test_muon_model,test_model_family,test_help_examples,test_zero_cost_cases,$\
                test_zero_cost_time,test_loss_scaler,test_import,test_headers
# CHECK_IN_DIST: suites that make check leaves to the dist layer, which runs them on the
# installed package (test_demo_scripts: every demo, about a minute); make check-octave alone
# runs them.
CHECK_IN_DIST := test_demo_scripts
CHECK_LAYERS := layers c octave octave-avx2 $(if $(HAVE_DNNL),c-nodnnl octave-nodnnl) \
                $(if $(HAVE_MPI),$(if $(shell command -v mpirun),mpi)) dist gpu-selftest gpu-mock \
                $(if $(shell command -v valgrind),valgrind) fuzz
# $(call run_octave,LAYER[,ENV[,SUFFIX]]): tests/octave/run_all.m on $(MEXDIR), result in
# $(RESULTS)/LAYER[SUFFIX]
run_octave = mkdir -p $(RESULTS) && cd tests/octave && $(2) MUON_LAYER=$(1) \
  MUON_RESULTS=$(abspath $(RESULTS))/$(1)$(3) MUON_MEXDIR=$(abspath $(MEXDIR)) \
  MUON_TEST_MEXDIR=$(abspath $(TEST_MEXDIR)) \
  $(OCTAVE) $(OCTFLAGS) run_all.m

# $(call timed,TARGET[,VARS]): one step of make check, its wall time recorded in
# $(CHECK_TIMES), printed before the totals; a failing step does not stop the others
CHECK_TIMES := $(B)/check.times
timed = t0=$$(date +%s); $(MAKE) --no-print-directory QUIET_PROBE=1 $(2) $(1) || true; \
  echo "$(1) $$(( $$(date +%s) - t0 ))" >> $(CHECK_TIMES)

check: deps all $(CTESTS) $(TEST_MEXES)
	@rm -rf $(RESULTS) $(CHECK_TIMES) && mkdir -p $(RESULTS)
	@$(call timed,check-layers)
	@$(call timed,check-c)
	@$(call timed,check-octave-2,OCTAVE_SKIP=$(CHECK_IN_DIST))
	@$(call timed,check-tiers)
	@$(call timed,check-mpi)
	@$(call timed,check-dist)
	@$(call timed,check-gpu-selftest)
	@$(call timed,check-gpu-mock)
	@for l in $(CHECK_HARD); do $(call timed,$$l); done
	@awk '{ t += $$2; printf "time: %-18s %4d s\n", $$1, $$2 } END { printf "time: %-18s %4d s (the builds before them not counted)\n", "all steps", t }' $(CHECK_TIMES)
	@tests/summarize.sh $(RESULTS) $(CHECK_LAYERS)

check-layers: $(CORE_OBJ) $(MPI_OBJDIR)/comm_mpi.o
	@mkdir -p $(RESULTS); CC="$(CC)" tests/layers/run.sh $(RESULTS)/layers core $^

check-c: $(CTESTS)
	@mkdir -p $(RESULTS); MUON_LAYER=c$(LAYER_SUFFIX) tests/c/run.sh \
	  $(RESULTS)/c$(LAYER_SUFFIX) $(CTESTS)

check-octave: all $(TEST_MEXES)
	@$(call run_octave,octave$(LAYER_SUFFIX),$(if $(LAYER_SUFFIX),MUON_SKIP=$(CHECK_ONCE),$(if $(OCTAVE_SKIP),MUON_SKIP=$(OCTAVE_SKIP))))

# check-octave-2: the octave layer as two shards side by side (what make check runs: the
# suites mostly use one core), each with its own TMPDIR, result file and log (printed after)
SHARD_TMP = $(abspath $(RESULTS))/shards
check-octave-2: all $(TEST_MEXES)
	@mkdir -p $(SHARD_TMP)/1 $(SHARD_TMP)/2; rc=0; \
	  ( $(call run_octave,octave,TMPDIR=$(SHARD_TMP)/1 MUON_SHARD=1/2 $(SHARD_SKIP),.1) ) \
	    > $(SHARD_TMP)/1.log 2>&1 & p1=$$!; \
	  ( $(call run_octave,octave,TMPDIR=$(SHARD_TMP)/2 MUON_SHARD=2/2 $(SHARD_SKIP),.2) ) \
	    > $(SHARD_TMP)/2.log 2>&1 & p2=$$!; \
	  wait $$p1 || rc=1; wait $$p2 || rc=1; \
	  cat $(SHARD_TMP)/1.log $(SHARD_TMP)/2.log; rm -rf $(SHARD_TMP); exit $$rc
SHARD_SKIP = $(if $(OCTAVE_SKIP),MUON_SKIP=$(OCTAVE_SKIP))

check-octave-avx2: all $(TEST_MEXES)
	@echo "octave-avx2: run_all.m with $(AVX2_ENV)"
	@$(call run_octave,octave-avx2$(LAYER_SUFFIX),$(AVX2_ENV) MUON_SKIP=$(CHECK_ONCE))

# the nodnnl layers: one sub-make per layer, so that a failing one does not stop the other
NODNNL_MAKE = $(MAKE) --no-print-directory B=$(NODNNL_B) ONEDNN=0 CUDA=$(CUDA) MPI=$(MPI) \
  NCCL=$(NCCL) RESULTS=$(RESULTS) LAYER_SUFFIX=-nodnnl QUIET_PROBE=
check-nodnnl:
ifeq ($(HAVE_DNNL),)
	@echo "nodnnl: this build has no oneDNN (ONEDNN=0 or not found): check-c and check-octave test that already"
else
	@echo "nodnnl: a second build without oneDNN in $(NODNNL_B), its C tests and Octave suites"
	@mkdir -p $(RESULTS); rc=0; $(NODNNL_MAKE) check-c || rc=1; \
	  $(NODNNL_MAKE) check-octave || rc=1; exit $$rc
endif

# check-tiers: c-nodnnl, then octave-avx2 and octave-nodnnl side by side (what make check
# runs).  Each of the two is one Octave that mostly uses one core, so on 2 cores the pair
# takes about the time of one; each gets its own TMPDIR, and its output is printed after.
TIERS_TMP = $(abspath $(RESULTS))/tmp
check-tiers: all $(TEST_MEXES)
ifeq ($(HAVE_DNNL),)
	@$(MAKE) --no-print-directory QUIET_PROBE=1 check-octave-avx2
else
	@echo "tiers: c-nodnnl (a second build without oneDNN in $(NODNNL_B)), then octave-avx2 and octave-nodnnl side by side"
	@mkdir -p $(RESULTS) $(TIERS_TMP)/avx2 $(TIERS_TMP)/nodnnl; rc=0; \
	  $(NODNNL_MAKE) check-c || rc=1; $(NODNNL_MAKE) all $(TEST_MEXES:$(B)/%=$(NODNNL_B)/%) || rc=1; \
	  TMPDIR=$(TIERS_TMP)/avx2 $(MAKE) --no-print-directory QUIET_PROBE=1 check-octave-avx2 \
	    > $(TIERS_TMP)/avx2.log 2>&1 & pid=$$!; \
	  TMPDIR=$(TIERS_TMP)/nodnnl $(NODNNL_MAKE) check-octave > $(TIERS_TMP)/nodnnl.log 2>&1 || rc=1; \
	  wait $$pid || rc=1; cat $(TIERS_TMP)/avx2.log $(TIERS_TMP)/nodnnl.log; \
	  rm -rf $(TIERS_TMP); exit $$rc
endif

# DIST_FULL=1: all of `pkg test muonlab` on the installed package (3.5 minutes more on 2
# cores; by default a subset that reaches every gateway, the octave layer having run the rest)
DIST_FULL ?= 0
check-dist: dist
	@mkdir -p $(RESULTS); ONEDNN=$(ONEDNN) CUDA=$(CUDA) MPI=$(MPI) NCCL=$(NCCL) QUIET_PROBE= \
	  MUON_DIST_FULL=$(DIST_FULL) tests/dist_install.sh muonlab-$(VERSION).tar.gz $(RESULTS)/dist

#---- demos, benchmarks, package -------------------------------------------------------------

# make demo DEMO=train_mlp runs another demo (ns_precision_sweep, ns_design_lab, ns_turbo_muon,
# plan_at_scale, zero2_experiment, mpi_zero2, zero3_pads, moe_expert_parallel, muon_family); DEMO_DISPLAY
# is its "Display" option: iter (the default here: a progress line per run or configuration),
# final (the tables only) or off.
# DEMO_THREADS (default 1) sets OMP_NUM_THREADS and OPENBLAS_NUM_THREADS: the demos' matrices
# are small, and on a shared, loaded machine spinning threads made them 2-7x slower (the
# results are the same bits for any thread count); DEMO_THREADS= keeps the environment's.
DEMO         ?= zero2_muon_correctness
DEMO_DISPLAY ?= iter
DEMO_THREADS ?= 1
demo: deps all
	cd demo && $(if $(DEMO_THREADS),OMP_NUM_THREADS=$(DEMO_THREADS) OPENBLAS_NUM_THREADS=$(DEMO_THREADS)) \
	  $(OCTAVE) $(OCTFLAGS) --eval "$(DEMO) ('Display', '$(DEMO_DISPLAY)');"

bench: all $(TEST_MEXES) $(BENCH_COMM)
	cd tests/bench && $(OCTAVE) $(OCTFLAGS) --eval "bench_ns; bench_mex; bench_mpi; bench_cost; bench_plan; bench_zero; bench_export;"

dist:
	tests/make_dist.sh $(VERSION)

# clean keeps $(CONFIG), the remembered switches; distclean forgets them too
clean:
	rm -rf $(filter-out $(CONFIG),$(wildcard $(B)/*)) muonlab-*.tar.gz

distclean:
	rm -rf $(B) muonlab-*.tar.gz

#---- GPU checks (tests/gpu; never part of make check) ----------------------------------------
# `make check-gpu` runs tests/gpu/run_gpu.m: muon_ns and muon_update with "Device", "cuda"
# against the CPU reference and the fp64 oracle, and a one-rank NCCL communicator; it ends with
# "N passed, N failed".  `make bench-gpu` times CUDA Newton-Schulz (tests/gpu/bench_gpu.m).
# Without a CUDA device (or with the CUDA back end not built) both print one line saying so and
# succeed.  `MUONLAB_GPU_SELFTEST=1 make check-gpu` runs the suites with the CPU as the device.
# `make memcheck-gpu` runs every device path once under compute-sanitizer's memcheck
# (tests/gpu/gpu_memcheck.m; skipped with a line without a device or the sanitizer);
# `make initcheck-gpu` the same under its initcheck (reads of memory nothing wrote).
# `make profile-gpu` runs the bench's NS cases under Nsight Systems and prints where each
# call's device time goes (tests/gpu/gpu_profile.m; skipped with a line without nsys).
# MUONLAB_GPU_SKIP=check-gpu,bench-gpu,... skips the targets it names (tests/gpu/gpu_skip.m).
.PHONY: check-gpu check-gpu-selftest bench-gpu memcheck-gpu initcheck-gpu profile-gpu

check-gpu: all
	@cd tests/gpu && $(OCTAVE) $(OCTFLAGS) run_gpu.m

# make check's layer gpu-selftest: check-gpu's suites with the CPU as the device
check-gpu-selftest: all
	@mkdir -p $(RESULTS); cd tests/gpu && MUONLAB_GPU_SELFTEST=1 MUONLAB_GPU_SKIP= \
	  MUON_RESULTS=$(abspath $(RESULTS))/gpu-selftest $(OCTAVE) $(OCTFLAGS) run_gpu.m

# make check's layer gpu-mock: the real plug-in sources (core/gpu/*.cu, the nvcc flags of
# libmuon_cuda.so) linked against tests/gpu_mock's host-memory stand-in of the CUDA runtime
# and cuBLAS (no GPU needed; kernels and products do nothing), then tests/gpu_mock/run_mock.m
# with MUON_CUDA_LIB on it: memory held and given back, out-of-memory paths, and every
# CUDA / cuBLAS call of small workloads failing in turn.  Without nvcc or the CUDA headers it
# reports 0 tests and says so.
MOCK_B  := $(B)/gpu_mock
MOCK_OK := $(if $(HAVE_CUDA),$(wildcard $(CUDA_HOME)/include/cublas_v2.h))
$(MOCK_B)/libmuon_cuda_mockrt.so: tests/gpu_mock/cuda_mock.cc tests/gpu_mock/cublas_nop.c
	@mkdir -p $(MOCK_B)
	$(CC) -O1 -fPIC -c tests/gpu_mock/cublas_nop.c -o $(MOCK_B)/cublas_nop.o
	$(CXX) -std=c++17 -O1 -fPIC -shared -I$(CUDA_HOME)/include tests/gpu_mock/cuda_mock.cc \
	  $(MOCK_B)/cublas_nop.o -o $@

# The NCCL plug-in the same way (core/gpu/comm_nccl_dev.c, libmuon_nccl.so's flags) against
# tests/gpu_mock/nccl_mock.cc's one-rank stand-in of NCCL on top of the CUDA one, and
# tests/gpu_mock/test_nccl_mock.c: every collective's results, and every CUDA / NCCL call of
# each failing in turn (status, message, nothing left queued on the stream, the next call
# right).  Needs nccl.h as libmuon_nccl.so does; without it, 0 tests and a message.
MOCK_NCCL_OK := $(if $(MOCK_OK),$(HAVE_NCCL))
$(MOCK_B)/libmuon_nccl_mockrt.so: tests/gpu_mock/nccl_mock.cc $(MOCK_B)/libmuon_cuda_mockrt.so
	$(CXX) -std=c++17 -O1 -fPIC -shared -I$(NCCL_HOME)/include -I$(CUDA_HOME)/include $< -o $@ \
	  -L$(MOCK_B) -lmuon_cuda_mockrt -Wl,-rpath,$(abspath $(MOCK_B)) -Wl,--no-undefined

$(MOCK_B)/libmuon_nccl.so: core/gpu/comm_nccl_dev.c $(CORE_HDR) $(MOCK_B)/libmuon_nccl_mockrt.so
	$(CC) -std=c99 -O2 -fPIC -shared -fvisibility=hidden $(WARN) $(call core_inc,gpu) \
	  -I$(NCCL_HOME)/include -I$(CUDA_HOME)/include $< -o $@ -L$(MOCK_B) -lmuon_nccl_mockrt \
	  -lmuon_cuda_mockrt -Wl,--no-undefined -Wl,-rpath,$(abspath $(MOCK_B))

$(MOCK_B)/test_nccl_mock: tests/gpu_mock/test_nccl_mock.c tests/c/harness.h $(MOCK_B)/libmuon_nccl.so
	$(CC) -std=c99 -O1 -g $(WARN) $(call core_inc,gpu) -Itests/c -I$(CUDA_HOME)/include $< \
	  -o $@ -L$(MOCK_B) -lmuon_nccl -lmuon_nccl_mockrt -lmuon_cuda_mockrt -lm \
	  -Wl,-rpath,$(abspath $(MOCK_B))

# tests/gpu_mock/test_comm_nccl_core.c: the core's half (core/comm/comm_nccl.c in libmuon.a)
# through the public API over that mock-built plug-in, found with MUON_NCCL_LIB: every
# collective and the counters against the sim communicator, device transfers; and
# tests/gpu_mock/test_comm_nccl_faults.c: the plug-in missing or wrong, no device, bad
# arguments, and each CUDA / NCCL call of create and of the collectives failing in turn
# (their helpers: tests/gpu_mock/comm_nccl_core.h).  They live beside libmuon_nccl.so
# (plugin.c's second place).
$(MOCK_B)/test_comm_nccl_core $(MOCK_B)/test_comm_nccl_faults: $(MOCK_B)/%: tests/gpu_mock/%.c \
    tests/gpu_mock/comm_nccl_core.h tests/c/harness.h $(MOCK_B)/libmuon_nccl.so $(LIB)
	$(CC) -std=c99 -O1 -g $(WARN) -Icore/include -Itests/c -I$(CUDA_HOME)/include $< \
	  -o $@ $(LIB) -L$(MOCK_B) -lmuon_cuda_mockrt $(LDLIBS) -Wl,-rpath,$(abspath $(MOCK_B))

$(MOCK_B)/libmuon_cuda.so: $(CUDA_SRC) $(CORE_HDR) $(MOCK_B)/libmuon_cuda_mockrt.so
	$(NVCC) -O3 -std=c++17 -fmad=false $(CUDA_ARCH) -Xcompiler -fPIC,-fvisibility=hidden \
	  -shared $(call core_inc,gpu) $(filter %.cu,$^) -o $@ -cudart none -L$(MOCK_B) \
	  -lmuon_cuda_mockrt -Xlinker -rpath=$(abspath $(MOCK_B)) -Xlinker --no-undefined

# tests/gpu_mock/test_cuda_update_mock.c: the plug-in's update entry called directly through
# the ABI table; a call it refuses (bad precision, steps or row blocks) makes no CUDA call
# and leaves M as it was.
$(MOCK_B)/test_cuda_update_mock: tests/gpu_mock/test_cuda_update_mock.c tests/c/harness.h \
                                 $(MOCK_B)/libmuon_cuda.so $(LIB)
	$(CC) -std=c99 -O1 -g $(WARN) $(call core_inc,gpu) -Itests/c $< -o $@ $(LIB) \
	  -L$(MOCK_B) -lmuon_cuda -lmuon_cuda_mockrt $(LDLIBS) -Wl,-rpath,$(abspath $(MOCK_B))

.PHONY: check-gpu-mock
check-gpu-mock: all $(if $(MOCK_OK),$(MOCK_B)/libmuon_cuda.so $(MOCK_B)/test_cuda_update_mock) \
                $(if $(MOCK_NCCL_OK),$(MOCK_B)/test_nccl_mock $(MOCK_B)/test_comm_nccl_core \
                  $(MOCK_B)/test_comm_nccl_faults)
	@mkdir -p $(RESULTS); rm -f $(RESULTS)/gpu-mock $(RESULTS)/gpu-mock-nccl \
	  $(RESULTS)/gpu-mock-comm $(RESULTS)/gpu-mock-faults $(RESULTS)/gpu-mock-update; rc=0; \
	if [ -z "$(MOCK_OK)" ]; then \
	  echo "check-gpu-mock: nvcc or the CUDA headers not found: skipped (0 tests)"; \
	  echo "gpu-mock 0 0" > $(RESULTS)/gpu-mock; \
	  echo "gpu-mock 0 0" > $(RESULTS)/gpu-mock-update; \
	else \
	  (cd tests/gpu_mock && MUON_CUDA_LIB=$(abspath $(MOCK_B))/libmuon_cuda.so \
	    MUON_MEXDIR=$(abspath $(MEXDIR)) MUON_RESULTS=$(abspath $(RESULTS))/gpu-mock \
	    $(OCTAVE) $(OCTFLAGS) run_mock.m) || rc=1; \
	  [ -s $(RESULTS)/gpu-mock ] || echo "gpu-mock 0 1" > $(RESULTS)/gpu-mock; \
	  MUON_RESULTS=$(abspath $(RESULTS))/gpu-mock-update $(MOCK_B)/test_cuda_update_mock \
	    || rc=1; \
	  [ -s $(RESULTS)/gpu-mock-update ] || echo "gpu-mock 0 1" > $(RESULTS)/gpu-mock-update; \
	fi; \
	if [ -z "$(MOCK_NCCL_OK)" ]; then \
	  echo "check-gpu-mock: NCCL (nccl.h) or the CUDA mock not available: the NCCL plug-in's mock test skipped (0 tests)"; \
	  echo "gpu-mock 0 0" > $(RESULTS)/gpu-mock-nccl; \
	  echo "gpu-mock 0 0" > $(RESULTS)/gpu-mock-comm; \
	  echo "gpu-mock 0 0" > $(RESULTS)/gpu-mock-faults; \
	else \
	  MUON_RESULTS=$(abspath $(RESULTS))/gpu-mock-nccl $(MOCK_B)/test_nccl_mock || rc=1; \
	  [ -s $(RESULTS)/gpu-mock-nccl ] || echo "gpu-mock 0 1" > $(RESULTS)/gpu-mock-nccl; \
	  MUON_NCCL_LIB=$(abspath $(MOCK_B))/libmuon_nccl.so \
	    MUON_RESULTS=$(abspath $(RESULTS))/gpu-mock-comm $(MOCK_B)/test_comm_nccl_core || rc=1; \
	  [ -s $(RESULTS)/gpu-mock-comm ] || echo "gpu-mock 0 1" > $(RESULTS)/gpu-mock-comm; \
	  MUON_NCCL_LIB=$(abspath $(MOCK_B))/libmuon_nccl.so \
	    MUON_RESULTS=$(abspath $(RESULTS))/gpu-mock-faults $(MOCK_B)/test_comm_nccl_faults || rc=1; \
	  [ -s $(RESULTS)/gpu-mock-faults ] || echo "gpu-mock 0 1" > $(RESULTS)/gpu-mock-faults; \
	fi; \
	cat $(RESULTS)/gpu-mock $(RESULTS)/gpu-mock-update $(RESULTS)/gpu-mock-nccl \
	  $(RESULTS)/gpu-mock-comm $(RESULTS)/gpu-mock-faults 2>/dev/null | \
	  awk '{ p += $$2; f += $$3 } END { printf "gpu-mock (run_mock.m, test_cuda_update_mock, " \
	  "test_nccl_mock, test_comm_nccl_core and test_comm_nccl_faults): %d passed, %d failed\n", \
	  p, f }'; \
	exit $$rc

bench-gpu: all
	@cd tests/gpu && $(OCTAVE) $(OCTFLAGS) --eval "bench_gpu;"

memcheck-gpu: all
	@cd tests/gpu && $(OCTAVE) $(OCTFLAGS) --eval "exit (gpu_memcheck () != 0);"

initcheck-gpu: all
	@cd tests/gpu && $(OCTAVE) $(OCTFLAGS) --eval "exit (gpu_memcheck ('', '', 'initcheck') != 0);"

profile-gpu: all
	@cd tests/gpu && $(OCTAVE) $(OCTFLAGS) --eval "gpu_profile;"

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

check-valgrind: all $(TEST_MEXES)
	@mkdir -p $(RESULTS); OCTAVE=$(OCTAVE) tests/valgrind/run.sh $(RESULTS)/valgrind $(B)/valgrind

check-fuzz: all
	@mkdir -p $(RESULTS); OCTAVE=$(OCTAVE) tests/fuzz/run.sh $(RESULTS)/fuzz $(B)/fuzz
