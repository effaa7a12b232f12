// Everything CPU execution mode offers to CUDA C++ code: the runtime API, the device language, math,
// atomics, launches, and loud failures for what is not supported.
#pragma once
#define GPULAB_CPU_MODE 1
#include "types.h"
#include "api.h"
#include "device.h"
#include "device_math.h"
#include "atomics.h"
#include "launch.h"
#include "unsupported.h"
#include <cstdio>
#include <cstdlib>
