// Compiled into every lab 07 solution library (student, reference, planted bugs): exports the functions
// of matmul.h as one table the grader loads at run time.
#include "api.h"
#include "matmul.h"

namespace {
const MatmulApi table{{"07-matmul"},
                      &matmul::launch_matmul_naive,
                      &matmul::launch_matmul_tiled,
                      &matmul::launch_transpose,
                      &matmul::launch_matmul_naive_bt,
                      &matmul::launch_matmul_tiled_bt};
}

GPULAB_EXPORT_LAB_API(table)
