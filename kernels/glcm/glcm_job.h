// glcm_job.h: a glcm work unit run by the app (docs/glcm.md, "Work units and
// results"): every image's blocks, checkpointed per block. Includes the kind's
// file headers, so that a file of the app or the server side that includes it
// has the whole work unit:
//   glcm_png.h       read_grey_png(), read_mask_png(), write_grey_png()   the WU's images (libpng; grey only)
//   glcm_params.h    GlcmParams, parse_glcm_params()      the WU's "params" JSON
//   glcm_result.h    BlockResult, ImageResult, GlcmResult  what a run produces
//   glcm_files.h     features_tsv(), parse_features_tsv()  the "features" output (the table)
//                    encode_maps(), decode_maps()          the "maps" output (per-window values, one distance)
//   glcm_summary.h   summary_json()                        the "summary" output (JSON; last file, names the kind)
//
// Contents:
//   run_glcm_job()   the app's whole job, checkpointed per block
#pragma once
#include "core/runtime.h"
#include "glcm_engine.h"
#include "glcm_files.h"
#include "glcm_params.h"
#include "glcm_png.h"
#include "glcm_result.h"
#include "glcm_summary.h"

namespace helix::glcm {

// Reads the images (through runtime.resolve), runs every block on `engine`,
// saving state after each block when the runtime says a checkpoint is due, and
// resuming from saved state. Throws InputError for bad inputs (including a ROI
// with no window), StopRequested when asked to stop.
GlcmResult run_glcm_job(const GlcmParams& params, GlcmEngine& engine, Runtime& runtime);

}  // namespace helix::glcm
