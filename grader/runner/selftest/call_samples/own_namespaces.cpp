// Student code whose own names merely look like a library's (../call_policy_test.cpp): none of it may be
// refused.
namespace mythrust {
__attribute__((noinline)) float halve(float x) { return x / 2; }
}  // namespace mythrust
namespace heat {
namespace thrust {
__attribute__((noinline)) float twice(float x) { return 2 * x; }
}  // namespace thrust
namespace cv {
__attribute__((noinline)) float same(float x) { return x; }
}  // namespace cv
}  // namespace heat

float combine(float x) { return mythrust::halve(x) + heat::thrust::twice(x) + heat::cv::same(x); }
