# Thin wrappers around CMake, CTest and gpulab-grade. README.md explains them.
#   make grade                         grade starter/ (every lab)
#   make grade LAB=01-heat-rod         one lab
#   make grade SOLUTION=reference      the reference solution (or wrong/<bug> for a planted bug)
#   make grade MODE=cpu                CPU execution mode (correctness only; the default without a GPU)
#   make test                          the project's own tests (CI runs this)
#   make grade-class SUBMISSIONS=dir/  grade a folder of submissions (gradebook, feedback: grader/class/README.md)
#   make dist [LABS=01-heat-rod,02-heat-2d]   the student release, reference compiled only (grader/release/README.md)
#   sudo make deps                     install the Debian packages a fresh machine lacks
# make grade and make test install those packages themselves where any is missing, as root or with
# passwordless sudo, and otherwise say to run sudo make deps (SKIP_DEPS=1 leaves the check out).

BUILD      ?= build
LAB        ?=
LABS       ?=
SOLUTION   ?= starter
MODE       ?= auto
JOBS       ?= $(shell nproc)
# make test's checks in parallel: those that time run alone (RUN_SERIAL), the rest share the GPU.
TEST_JOBS  ?= $(JOBS)
CMAKE_ARGS ?=
SKIP_DEPS  ?=
SUBMISSIONS ?=
CLASS_OUT  ?= $(BUILD)/class
CLASS_ARGS ?=

ifeq ($(strip $(BUILD)),)
$(error BUILD must name the build folder, e.g. BUILD=build)
endif

# nvcc lives outside PATH on a stock CUDA install. Kept apart from CMAKE_ARGS, which a command line
# replaces: CMAKE_ARGS comes after it, so a -DCMAKE_CUDA_COMPILER there still has the last word.
CUDA_ARGS :=
ifeq ($(shell command -v nvcc 2>/dev/null),)
ifneq ($(wildcard /usr/local/cuda/bin/nvcc),)
CUDA_ARGS := -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc
endif
endif

.PHONY: grade grade-run grade-class test configure deps dist clean

# First the Debian packages this machine lacks, if any (.ci/install-deps --auto: one dpkg-query when
# nothing is). Then a configure where the build folder has no cache or no generated build system, afresh:
# a configure that failed leaves no cache behind (only CMake's logs in CMakeFiles/).
configure:
	@$(if $(SKIP_DEPS),,bash .ci/install-deps --auto || exit 1;) \
	if [ -f $(BUILD)/CMakeCache.txt ] && { [ -f $(BUILD)/Makefile ] || [ -f $(BUILD)/build.ninja ]; }; then exit 0; fi; \
	rm -rf $(BUILD)/CMakeCache.txt $(BUILD)/CMakeFiles; \
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CUDA_ARGS) $(CMAKE_ARGS) && exit 0; \
	rm -f $(BUILD)/CMakeCache.txt; \
	echo; \
	echo "Configuring $(BUILD) failed: CMake's message above says why. Once that is fixed, run make again:"; \
	echo "it configures afresh (no make clean needed)."; \
	command -v dpkg-query >/dev/null || echo "Not a Debian or Ubuntu machine: docs/setup.md lists what to install."; \
	exit 1

# make grade ends with gpulab-grade's exit status. A failed recipe would make GNU make print
# "make: *** [...] Error 2" after every grade without a GPU, so grade-run records the status and
# succeeds, and grade ends make: nothing more for 0, else $(error), GNU make's only other way to stop
# (always with exit status 2: make cannot exit with 4).
GRADE_STATUS = $(BUILD)/.grade-exit-status

grade: grade-run
	@$(call grade_end,$(shell cat $(GRADE_STATUS) 2>/dev/null; rm -f $(GRADE_STATUS)))

grade_end = $(if $(filter-out 0,$1),$(error $(if $(filter 2,$1),exit status 2: graded without a GPU (correctness only)$(comma) \
  which is not an error,gpulab-grade stopped with exit status $1$(if $(filter 4,$1), (a usage or build-system error)): \
  see its output above)),true)
comma := ,

# The graders make grade builds first: CPU execution mode's alone where that is what grading will use (MODE=cpu,
# or auto where nvidia-smi sees no GPU), halving a first build; every mode's otherwise (GPU grading also runs a
# lab's CPU-only tests). gpulab-grade builds a grader it finds missing, should the CUDA runtime see a GPU after all.
GRADERS = $(if $(filter cpu,$(MODE))$(if $(filter auto,$(MODE)),$(if $(GPU_SEEN),,cpu)),gpulab_graders_cpu,gpulab_graders)
GPU_SEEN = $(shell nvidia-smi -L 2>/dev/null | grep -q '^GPU' && echo yes)

grade-run: configure
	@rm -f $(GRADE_STATUS)
	@{ cmake --build $(BUILD) --target $(GRADERS) -j $(JOBS) 2>&1; echo $$? > $(BUILD)/.grader-build-status; } | \
	  tee $(BUILD)/grader-build.log | awk -v logfile=$(BUILD)/grader-build.log -f grader/cmake/build_progress.awk
	@test "$$(cat $(BUILD)/.grader-build-status)" = 0 || \
	  { cat $(BUILD)/grader-build.log; echo "The grader itself failed to build (see above)."; exit 1; }
	@$(BUILD)/gpulab-grade --build-dir $(BUILD) --solution $(SOLUTION) --mode $(MODE) $(if $(LAB),--lab $(LAB)); \
	  echo $$? > $(GRADE_STATUS)

grade-class: configure
	@test -d grader/class || { echo "make grade-class is for instructors: grading a class lives in the course's own repository, not in this release."; exit 1; }
	@test -n "$(SUBMISSIONS)" || { echo "usage: make grade-class SUBMISSIONS=<folder of submissions> [CLASS_OUT=<folder>] [LAB=<lab>] [CLASS_ARGS=...]"; exit 1; }
	@cmake --build $(BUILD) --target gpulab-grade-class -j $(JOBS) > $(BUILD)/class-build.log 2>&1 || \
	  { cat $(BUILD)/class-build.log; echo "gpulab-grade-class failed to build (see above)."; exit 1; }
	@$(BUILD)/gpulab-grade-class --submissions $(SUBMISSIONS) --out $(CLASS_OUT) $(if $(LAB),--labs $(LAB)) $(CLASS_ARGS)

# Some checks build the project again: the release from its tarball, the class graders' workspaces. Where ccache is
# installed, make test compiles through it (C++ and nvcc), paths taken relative to this folder (CCACHE_BASEDIR), so
# that a copy laid out like this tree (sources, and the build folder one level below them), such as the unpacked
# release or a class workspace, gets the main build's objects for its unchanged sources.
# ccache compiles anything whose preprocessed source or flags differ, so a release missing a header still fails.
# A build folder configured before without it (by make grade, say) stays as it was.
CCACHE := $(shell command -v ccache 2>/dev/null)
ifneq ($(CCACHE),)
test: export CMAKE_CXX_COMPILER_LAUNCHER := $(CCACHE)
test: export CMAKE_CUDA_COMPILER_LAUNCHER := $(CCACHE)
test: export CCACHE_BASEDIR := $(CURDIR)
endif

# make test's own packages first (chromium, for the report page's check): a check that lacks one says so and skips.
test: configure
	@$(if $(SKIP_DEPS),,bash .ci/install-deps --auto --tests || echo "make test: the checks that need those packages skip";)
	cmake --build $(BUILD) -j $(JOBS)
	ctest --test-dir $(BUILD) --output-on-failure -j $(TEST_JOBS)

dist:
	@test -d grader/release || { echo "make dist builds a student release from the instructor's repository; this is already one."; exit 1; }
	grader/release/make_dist.sh --out $(BUILD)/dist --build-dir $(BUILD)/dist-build $(if $(LABS),--labs $(LABS))

deps:
	@bash .ci/install-deps

clean:
	rm -rf $(BUILD)
