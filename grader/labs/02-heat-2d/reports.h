// Lab 02's reports (no points): the handout's solve drawn as heat maps (Report.Snapshots) and time per step for
// growing grids (Report.ScalingStudy), each a table and a picture in the artifacts folder.
#pragma once

namespace heat_2d_grading {

void report_snapshots();
void report_scaling_study();

}  // namespace heat_2d_grading
