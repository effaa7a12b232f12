// CPU execution mode (gpulab): not available; fail loudly instead of compiling something else.
#pragma once
#error "gpulab CPU execution mode: <cuda_fp16.h> is not supported (run this lab on a GPU)"
