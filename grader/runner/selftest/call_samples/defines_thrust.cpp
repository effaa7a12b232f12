// A stand-in for a header-only library compiled into student code (../call_policy_test.cpp): a function
// template of namespace thrust, in a versioned ABI namespace as CCCL writes them, instantiated here.
namespace thrust {
inline namespace THRUST_300001_SM_900_NS {
template <class T>
struct plus {
    T operator()(T a, T b) const { return a + b; }
};
template <class F>
__attribute__((noinline)) float transform_one(float x, F f) {
    return f(x, 1.0f);
}
}  // namespace THRUST_300001_SM_900_NS
}  // namespace thrust

float step(float x) { return thrust::transform_one(x, thrust::plus<float>{}); }
