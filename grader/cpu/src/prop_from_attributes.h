// cudaDeviceProp from the device's attributes, as the CUDA runtime fills it: each field is the driver attribute of
// the same number as a cudaDeviceAttr (the runtime passes cudaDeviceGetAttribute through to cuDeviceGetAttribute).
// The test cpu_mode.GpuAnswers.PropFromAttributesIsTheRecordedProp holds every field to a recording from a real GPU.
// Included by gpu_answers.h.
#pragma once
#include <type_traits>

namespace gpulab::cpu {

template <class Attribute>
void fill_prop_from_attributes(cudaDeviceProp* p, Attribute attribute) {
  auto set = [&](auto& field, cudaDeviceAttr a) { field = static_cast<std::remove_reference_t<decltype(field)>>(attribute(a)); };
  set(p->sharedMemPerBlock, cudaDevAttrMaxSharedMemoryPerBlock);
  set(p->regsPerBlock, cudaDevAttrMaxRegistersPerBlock);
  set(p->warpSize, cudaDevAttrWarpSize);
  set(p->memPitch, cudaDevAttrMaxPitch);
  set(p->maxThreadsPerBlock, cudaDevAttrMaxThreadsPerBlock);
  set(p->maxThreadsDim[0], cudaDevAttrMaxBlockDimX);
  set(p->maxThreadsDim[1], cudaDevAttrMaxBlockDimY);
  set(p->maxThreadsDim[2], cudaDevAttrMaxBlockDimZ);
  set(p->maxGridSize[0], cudaDevAttrMaxGridDimX);
  set(p->maxGridSize[1], cudaDevAttrMaxGridDimY);
  set(p->maxGridSize[2], cudaDevAttrMaxGridDimZ);
  set(p->totalConstMem, cudaDevAttrTotalConstantMemory);
  set(p->major, cudaDevAttrComputeCapabilityMajor);
  set(p->minor, cudaDevAttrComputeCapabilityMinor);
  set(p->textureAlignment, cudaDevAttrTextureAlignment);
  set(p->texturePitchAlignment, cudaDevAttrTexturePitchAlignment);
  set(p->multiProcessorCount, cudaDevAttrMultiProcessorCount);
  set(p->integrated, cudaDevAttrIntegrated);
  set(p->canMapHostMemory, cudaDevAttrCanMapHostMemory);
  set(p->maxTexture1D, cudaDevAttrMaxTexture1DWidth);
  set(p->maxTexture1DMipmap, cudaDevAttrMaxTexture1DMipmappedWidth);
  set(p->maxTexture2D[0], cudaDevAttrMaxTexture2DWidth);
  set(p->maxTexture2D[1], cudaDevAttrMaxTexture2DHeight);
  set(p->maxTexture2DMipmap[0], cudaDevAttrMaxTexture2DMipmappedWidth);
  set(p->maxTexture2DMipmap[1], cudaDevAttrMaxTexture2DMipmappedHeight);
  set(p->maxTexture2DLinear[0], cudaDevAttrMaxTexture2DLinearWidth);
  set(p->maxTexture2DLinear[1], cudaDevAttrMaxTexture2DLinearHeight);
  set(p->maxTexture2DLinear[2], cudaDevAttrMaxTexture2DLinearPitch);
  set(p->maxTexture2DGather[0], cudaDevAttrMaxTexture2DGatherWidth);
  set(p->maxTexture2DGather[1], cudaDevAttrMaxTexture2DGatherHeight);
  set(p->maxTexture3D[0], cudaDevAttrMaxTexture3DWidth);
  set(p->maxTexture3D[1], cudaDevAttrMaxTexture3DHeight);
  set(p->maxTexture3D[2], cudaDevAttrMaxTexture3DDepth);
  set(p->maxTexture3DAlt[0], cudaDevAttrMaxTexture3DWidthAlt);
  set(p->maxTexture3DAlt[1], cudaDevAttrMaxTexture3DHeightAlt);
  set(p->maxTexture3DAlt[2], cudaDevAttrMaxTexture3DDepthAlt);
  set(p->maxTextureCubemap, cudaDevAttrMaxTextureCubemapWidth);
  set(p->maxTexture1DLayered[0], cudaDevAttrMaxTexture1DLayeredWidth);
  set(p->maxTexture1DLayered[1], cudaDevAttrMaxTexture1DLayeredLayers);
  set(p->maxTexture2DLayered[0], cudaDevAttrMaxTexture2DLayeredWidth);
  set(p->maxTexture2DLayered[1], cudaDevAttrMaxTexture2DLayeredHeight);
  set(p->maxTexture2DLayered[2], cudaDevAttrMaxTexture2DLayeredLayers);
  set(p->maxTextureCubemapLayered[0], cudaDevAttrMaxTextureCubemapLayeredWidth);
  set(p->maxTextureCubemapLayered[1], cudaDevAttrMaxTextureCubemapLayeredLayers);
  set(p->maxSurface1D, cudaDevAttrMaxSurface1DWidth);
  set(p->maxSurface2D[0], cudaDevAttrMaxSurface2DWidth);
  set(p->maxSurface2D[1], cudaDevAttrMaxSurface2DHeight);
  set(p->maxSurface3D[0], cudaDevAttrMaxSurface3DWidth);
  set(p->maxSurface3D[1], cudaDevAttrMaxSurface3DHeight);
  set(p->maxSurface3D[2], cudaDevAttrMaxSurface3DDepth);
  set(p->maxSurface1DLayered[0], cudaDevAttrMaxSurface1DLayeredWidth);
  set(p->maxSurface1DLayered[1], cudaDevAttrMaxSurface1DLayeredLayers);
  set(p->maxSurface2DLayered[0], cudaDevAttrMaxSurface2DLayeredWidth);
  set(p->maxSurface2DLayered[1], cudaDevAttrMaxSurface2DLayeredHeight);
  set(p->maxSurface2DLayered[2], cudaDevAttrMaxSurface2DLayeredLayers);
  set(p->maxSurfaceCubemap, cudaDevAttrMaxSurfaceCubemapWidth);
  set(p->maxSurfaceCubemapLayered[0], cudaDevAttrMaxSurfaceCubemapLayeredWidth);
  set(p->maxSurfaceCubemapLayered[1], cudaDevAttrMaxSurfaceCubemapLayeredLayers);
  set(p->surfaceAlignment, cudaDevAttrSurfaceAlignment);
  set(p->concurrentKernels, cudaDevAttrConcurrentKernels);
  set(p->ECCEnabled, cudaDevAttrEccEnabled);
  set(p->pciBusID, cudaDevAttrPciBusId);
  set(p->pciDeviceID, cudaDevAttrPciDeviceId);
  set(p->pciDomainID, cudaDevAttrPciDomainId);
  set(p->tccDriver, cudaDevAttrTccDriver);
  set(p->asyncEngineCount, cudaDevAttrAsyncEngineCount);
  set(p->unifiedAddressing, cudaDevAttrUnifiedAddressing);
  set(p->memoryBusWidth, cudaDevAttrGlobalMemoryBusWidth);
  set(p->l2CacheSize, cudaDevAttrL2CacheSize);
  set(p->persistingL2CacheMaxSize, cudaDevAttrMaxPersistingL2CacheSize);
  set(p->maxThreadsPerMultiProcessor, cudaDevAttrMaxThreadsPerMultiProcessor);
  set(p->streamPrioritiesSupported, cudaDevAttrStreamPrioritiesSupported);
  set(p->globalL1CacheSupported, cudaDevAttrGlobalL1CacheSupported);
  set(p->localL1CacheSupported, cudaDevAttrLocalL1CacheSupported);
  set(p->sharedMemPerMultiprocessor, cudaDevAttrMaxSharedMemoryPerMultiprocessor);
  set(p->regsPerMultiprocessor, cudaDevAttrMaxRegistersPerMultiprocessor);
  set(p->managedMemory, cudaDevAttrManagedMemory);
  set(p->isMultiGpuBoard, cudaDevAttrIsMultiGpuBoard);
  set(p->multiGpuBoardGroupID, cudaDevAttrMultiGpuBoardGroupID);
  set(p->hostNativeAtomicSupported, cudaDevAttrHostNativeAtomicSupported);
  set(p->pageableMemoryAccess, cudaDevAttrPageableMemoryAccess);
  set(p->concurrentManagedAccess, cudaDevAttrConcurrentManagedAccess);
  set(p->computePreemptionSupported, cudaDevAttrComputePreemptionSupported);
  set(p->canUseHostPointerForRegisteredMem, cudaDevAttrCanUseHostPointerForRegisteredMem);
  set(p->cooperativeLaunch, cudaDevAttrCooperativeLaunch);
  set(p->sharedMemPerBlockOptin, cudaDevAttrMaxSharedMemoryPerBlockOptin);
  set(p->pageableMemoryAccessUsesHostPageTables, cudaDevAttrPageableMemoryAccessUsesHostPageTables);
  set(p->directManagedMemAccessFromHost, cudaDevAttrDirectManagedMemAccessFromHost);
  set(p->maxBlocksPerMultiProcessor, cudaDevAttrMaxBlocksPerMultiprocessor);
  set(p->accessPolicyMaxWindowSize, cudaDevAttrMaxAccessPolicyWindowSize);
  set(p->reservedSharedMemPerBlock, cudaDevAttrReservedSharedMemoryPerBlock);
  set(p->hostRegisterSupported, cudaDevAttrHostRegisterSupported);
  set(p->sparseCudaArraySupported, cudaDevAttrSparseCudaArraySupported);
  set(p->hostRegisterReadOnlySupported, cudaDevAttrHostRegisterReadOnlySupported);
  set(p->timelineSemaphoreInteropSupported, cudaDevAttrTimelineSemaphoreInteropSupported);
  set(p->memoryPoolsSupported, cudaDevAttrMemoryPoolsSupported);
  set(p->gpuDirectRDMASupported, cudaDevAttrGPUDirectRDMASupported);
  set(p->gpuDirectRDMAFlushWritesOptions, cudaDevAttrGPUDirectRDMAFlushWritesOptions);
  set(p->gpuDirectRDMAWritesOrdering, cudaDevAttrGPUDirectRDMAWritesOrdering);
  set(p->memoryPoolSupportedHandleTypes, cudaDevAttrMemoryPoolSupportedHandleTypes);
  set(p->deferredMappingCudaArraySupported, cudaDevAttrDeferredMappingCudaArraySupported);
  set(p->ipcEventSupported, cudaDevAttrIpcEventSupport);
  set(p->clusterLaunch, cudaDevAttrClusterLaunch);
  // CUDA 13 calls attribute 129 "reserved"; the driver still answers CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS.
  set(p->unifiedFunctionPointers, cudaDevAttrReserved129);
  set(p->deviceNumaConfig, cudaDevAttrNumaConfig);
  set(p->deviceNumaId, cudaDevAttrNumaId);
  set(p->mpsEnabled, cudaDevAttrMpsEnabled);
  set(p->hostNumaId, cudaDevAttrHostNumaId);
  set(p->gpuPciDeviceID, cudaDevAttrGpuPciDeviceId);
  set(p->gpuPciSubsystemID, cudaDevAttrGpuPciSubsystemId);
  set(p->hostNumaMultinodeIpcSupported, cudaDevAttrHostNumaMultinodeIpcSupported);
}

}  // namespace gpulab::cpu
