#!/bin/bash
# One Slurm array task per line of jobs.txt (`lazysma batch MANIFEST
# --print-jobs --results DIR > jobs.txt`, with or without --split N); the
# result files go to DIR, which must be on a file system every node sees.
# Submit from the directory holding jobs.txt:
#   n=$(wc -l < jobs.txt); sbatch --array=1-$n scripts/slurm-array.sh
# then, once the array has ended: lazysma merge DIR --manifest MANIFEST
# (with the batch's --split N) --junit junit.xml --sarif findings.sarif
#SBATCH --job-name=lazysma
#SBATCH --cpus-per-task=1
#SBATCH --time=00:15:00
#SBATCH --output=slurm-%A_%a.out
set -euo pipefail
line=$(sed -n "${SLURM_ARRAY_TASK_ID}p" jobs.txt)
exec bash -c "$line"
