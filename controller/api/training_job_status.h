// Reading and writing TrainingJob.status (kept apart from the spec's rules).
#pragma once

#include "gpupool/api/training_job.h"

namespace gpupool::api {

TrainingJobStatus ReadTrainingJobStatus(json::Reader& status);

}  // namespace gpupool::api
