/* Inlines common.h and the model header chosen with -DSMA_MODEL_<NAME>, the
 * way the translator inlines them after its prologue (the T-CDLL models
 * after tcdll.h, SC after memory.h, the reference models after memory.h
 * and buffers.h). */
#include "../../sma/common.h"
#if defined(SMA_MODEL_SC)
#include "../../sma/memory.h"
#include "../../sma/sc.h"
#elif defined(SMA_MODEL_ETSO)
#include "../../sma/tcdll.h"
#include "../../sma/etso.h"
#elif defined(SMA_MODEL_EPSO)
#include "../../sma/tcdll.h"
#include "../../sma/epso.h"
#elif defined(SMA_MODEL_TSO_REF)
#include "../../sma/memory.h"
#include "../../sma/buffers.h"
#include "../../sma/tso_ref.h"
#elif defined(SMA_MODEL_PSO_REF)
#include "../../sma/memory.h"
#include "../../sma/buffers.h"
#include "../../sma/pso_ref.h"
#else
#error "choose a model: -DSMA_MODEL_SC, _ETSO, _EPSO, _TSO_REF or _PSO_REF"
#endif
