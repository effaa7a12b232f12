// CPU execution mode (gpulab): not available; fail loudly instead of compiling something else.
#pragma once
#error "gpulab CPU execution mode: <cooperative_groups.h> is not supported (run this lab on a GPU)"
