/**
 * The rank of this process when a multi-process launcher started it, read from the variables each launcher sets
 * (torchrun and `gsprof record --nproc`: RANK/WORLD_SIZE/LOCAL_RANK; Open MPI's mpirun: OMPI_COMM_WORLD_*;
 * MPICH/Hydra: PMI_*; Slurm's srun: SLURM_PROCID/SLURM_NTASKS/SLURM_LOCALID). It goes into the trace as Kineto's
 * distributedInfo, so HTA and gsprof's rank views know which rank wrote it.
 */

export interface DistributedInfo {
  /** Kineto's field: the collective backend. gsprof's ranks run no collectives. */
  backend: 'none';
  rank: number;
  world_size: number;
  local_rank?: number;
  /** Which launcher's variables gave the rank. */
  launcher: 'gsprof' | 'torchrun' | 'mpirun' | 'mpich' | 'srun' | 'env';
  /** The launch every rank of one run shares, when the launcher names it: ranks of different runs never mix. */
  job_id?: string;
}

type Env = Record<string, string | undefined>;

function count(v: string | undefined): number | undefined {
  if (v === undefined || !/^\d+$/.test(v.trim())) return undefined;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** The launch id every rank of one run sees. */
function jobId(env: Env): string | undefined {
  if (env.GSPROF_JOB_ID) return env.GSPROF_JOB_ID;
  if (env.TORCHELASTIC_RUN_ID) return env.TORCHELASTIC_RUN_ID;
  if (env.SLURM_JOB_ID) return env.SLURM_STEP_ID !== undefined ? `${env.SLURM_JOB_ID}.${env.SLURM_STEP_ID}` : env.SLURM_JOB_ID;
  if (env.PMIX_NAMESPACE) return env.PMIX_NAMESPACE;
  if (env.OMPI_MCA_orte_ess_jobid) return env.OMPI_MCA_orte_ess_jobid;
  return undefined;
}

/** The launcher's rank variables, or undefined for a process started alone. Variables that contradict each other
 * (a rank at or past the world size) are an error: a trace labelled with a wrong rank would mislead every view. */
export function distributedFromEnv(env: Env = process.env): DistributedInfo | undefined {
  const candidates: Array<[DistributedInfo['launcher'], string, string, string]> = [
    [env.GSPROF_JOB_ID ? 'gsprof' : env.TORCHELASTIC_RUN_ID ? 'torchrun' : 'env', 'RANK', 'WORLD_SIZE', 'LOCAL_RANK'],
    ['mpirun', 'OMPI_COMM_WORLD_RANK', 'OMPI_COMM_WORLD_SIZE', 'OMPI_COMM_WORLD_LOCAL_RANK'],
    ['mpich', 'PMI_RANK', 'PMI_SIZE', 'MPI_LOCALRANKID'],
    ['srun', 'SLURM_PROCID', 'SLURM_NTASKS', 'SLURM_LOCALID'],
  ];
  for (const [launcher, rankVar, sizeVar, localVar] of candidates) {
    if (env[rankVar] === undefined) continue;
    const rank = count(env[rankVar]);
    const worldSize = count(env[sizeVar]);
    if (rank === undefined) throw new Error(`${rankVar}='${env[rankVar]}' is not a rank (a whole number >= 0)`);
    if (worldSize === undefined || worldSize < 1) throw new Error(`${rankVar} is set but ${sizeVar}='${env[sizeVar] ?? ''}' is not a world size (a whole number >= 1)`);
    if (rank >= worldSize) throw new Error(`${rankVar}=${rank} is not below ${sizeVar}=${worldSize}`);
    const localRank = count(env[localVar]);
    const job = jobId(env);
    return { backend: 'none', rank, world_size: worldSize, ...(localRank !== undefined ? { local_rank: localRank } : {}), launcher, ...(job ? { job_id: job } : {}) };
  }
  return undefined;
}
