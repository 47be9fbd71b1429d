/*
** GPS hints for HIP programs linked against libmgsim-hip (docs/gps.md), in
** the spirit of seed 003's cuMemAdvise(GPS_SUBSCRIBE / GPS_UNSUBSCRIBE) and
** cuGPSTrackingStart / Stop. Include after <hip/hip_runtime.h>.
**
**   hipMemAdvise(p, n, mgsimMemAdviseGps, dev)     the allocation holding
**       [p, p + n) (hipMalloc) becomes GPS: a replica on every GPU, all
**       subscribed, automatic subscription (dev is ignored)
**   hipMemAdvise(p, n, mgsimMemAdviseGpsManual, dev)   the same, left out
**       of the profiling window
**   hipMemAdvise(p, n, mgsimMemAdviseGpsSubscribe / Unsubscribe, dev)
**       device dev (un)subscribes the GPS pages of [p, p + n)
**   hipExtMgsimGpsTrackingStart() / Stop()   the profiling window
** Where GPS is not active (emu mode, another coherence.protocol, one GPU)
** they validate their arguments and do nothing.
*/
#ifndef MGSIM_HIP_GPS_H
#define MGSIM_HIP_GPS_H

#define mgsimMemAdviseGps ((hipMemoryAdvise)0x47505300)
#define mgsimMemAdviseGpsManual ((hipMemoryAdvise)0x47505301)
#define mgsimMemAdviseGpsSubscribe ((hipMemoryAdvise)0x47505302)
#define mgsimMemAdviseGpsUnsubscribe ((hipMemoryAdvise)0x47505303)

#ifdef __cplusplus
extern "C" {
#endif
hipError_t hipExtMgsimGpsTrackingStart(void);
hipError_t hipExtMgsimGpsTrackingStop(void);
#ifdef __cplusplus
}
#endif

#endif
