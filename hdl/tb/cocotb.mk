# One cocotb run: make -f tb/cocotb.mk SIM=icarus|verilator TOPLEVEL=<module> MODULE=<test>
# [PARAMS="NAME=value ..."] [DEFINES="MACRO ..."] [RUN=<name of the build/results directory>]
HDL := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
RUN ?= $(TOPLEVEL)
TOPLEVEL_LANG = verilog
VERILOG_SOURCES = $(wildcard $(HDL)/rtl/*.v)
SIM_BUILD = $(HDL)/build/$(SIM)$(if $(VL_COVERAGE),-coverage)/$(RUN)
COCOTB_RESULTS_FILE = $(HDL)/build/results$(if $(VL_COVERAGE),-coverage)$(if $(NETLIST),-netlist)/$(SIM)-$(RUN).xml
export PYTHONPATH := $(HDL)/tb:$(HDL)/syn:$(PYTHONPATH)
COMPILE_ARGS += $(foreach d,$(DEFINES),-D$(d))
ifeq ($(SIM),verilator)
  COMPILE_ARGS += $(HDL)/lint.vlt $(foreach p,$(PARAMS),-G$(p))
  ifeq ($(TOGGLES),1)
    # Toggle counts of every signal bit, written to coverage.dat (switching-activity proxy).
    EXTRA_ARGS += --coverage-toggle --coverage-max-width 8192
  endif
  ifeq ($(VL_COVERAGE),1)
    # Line and toggle coverage (`make coverage`), written to coverage.dat.
    EXTRA_ARGS += --coverage-line --coverage-toggle
  endif
  EXTRA_ARGS += -O2
  # The Verilator runtime (verilated*.cpp, half of a bench's C++ build) is the same in every
  # run: ccache compiles it once (no-op when ccache is not installed).
  BUILD_ARGS += OBJCACHE=$(shell command -v ccache)
else
  COMPILE_ARGS += $(foreach p,$(PARAMS),-P$(TOPLEVEL).$(p))
endif
include $(shell cocotb-config --makefiles)/Makefile.sim
