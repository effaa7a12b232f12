# Thin wrappers around CMake, CTest and gpulab-grade. README.md explains them.
#   make grade                         grade starter/ (every lab)
#   make grade LAB=01-heat-rod         one lab
#   make grade SOLUTION=reference      the reference solution (or wrong/<bug> for a planted bug)
#   make grade MODE=cpu                CPU execution mode (correctness only; the default without a GPU)
#   make test                          the project's own tests (CI runs this)
#   make grade-class SUBMISSIONS=dir/  grade a folder of submissions (gradebook, feedback: grader/class/README.md)
#   sudo make deps                     install the Debian packages a fresh machine lacks

BUILD      ?= build
LAB        ?=
SOLUTION   ?= starter
MODE       ?= auto
JOBS       ?= $(shell nproc)
# make test's checks in parallel: those that time run alone (RUN_SERIAL), the rest share the GPU.
TEST_JOBS  ?= $(JOBS)
CMAKE_ARGS ?=
SUBMISSIONS ?=
CLASS_OUT  ?= $(BUILD)/class
CLASS_ARGS ?=

# nvcc lives outside PATH on a stock CUDA install.
ifeq ($(shell command -v nvcc 2>/dev/null),)
ifneq ($(wildcard /usr/local/cuda/bin/nvcc),)
CMAKE_ARGS += -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc
endif
endif

.PHONY: grade grade-class test configure deps clean

configure:
	@test -f $(BUILD)/CMakeCache.txt || cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS) || \
	  { echo "Configuring failed. On a fresh machine, install the dependencies first: sudo make deps"; exit 1; }

grade: configure
	@cmake --build $(BUILD) --target gpulab_graders -j $(JOBS) > $(BUILD)/grader-build.log 2>&1 || \
	  { cat $(BUILD)/grader-build.log; echo "The grader itself failed to build (see above)."; exit 1; }
	@$(BUILD)/gpulab-grade --build-dir $(BUILD) --solution $(SOLUTION) --mode $(MODE) $(if $(LAB),--lab $(LAB)); \
	  status=$$?; \
	  if [ $$status -eq 2 ]; then echo "(exit status 2: graded without a GPU, so speed and technique were not graded)"; fi; \
	  exit $$status

grade-class: configure
	@test -n "$(SUBMISSIONS)" || { echo "usage: make grade-class SUBMISSIONS=<folder of submissions> [CLASS_OUT=<folder>] [LAB=<lab>] [CLASS_ARGS=...]"; exit 1; }
	@cmake --build $(BUILD) --target gpulab-grade-class -j $(JOBS) > $(BUILD)/class-build.log 2>&1 || \
	  { cat $(BUILD)/class-build.log; echo "gpulab-grade-class failed to build (see above)."; exit 1; }
	@$(BUILD)/gpulab-grade-class --submissions $(SUBMISSIONS) --out $(CLASS_OUT) $(if $(LAB),--labs $(LAB)) $(CLASS_ARGS)

test: configure
	cmake --build $(BUILD) -j $(JOBS)
	ctest --test-dir $(BUILD) --output-on-failure -j $(TEST_JOBS)

deps:
	.ci/install-deps

clean:
	rm -rf $(BUILD)
