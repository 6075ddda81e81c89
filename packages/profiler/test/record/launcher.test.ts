import { describe, expect, it } from 'vitest';
import { distributedFromEnv } from '../../src/record/launcher.js';

describe('distributedFromEnv: the rank a launcher gave this process', () => {
  it('a process started alone has none', () => {
    expect(distributedFromEnv({})).toBeUndefined();
  });

  it('torchrun: RANK, WORLD_SIZE, LOCAL_RANK and its run id', () => {
    expect(distributedFromEnv({ RANK: '3', WORLD_SIZE: '8', LOCAL_RANK: '1', TORCHELASTIC_RUN_ID: 'abc' }))
      .toEqual({ backend: 'none', rank: 3, world_size: 8, local_rank: 1, launcher: 'torchrun', job_id: 'abc' });
  });

  it('Open MPI, MPICH and Slurm each by their own variables', () => {
    expect(distributedFromEnv({ OMPI_COMM_WORLD_RANK: '2', OMPI_COMM_WORLD_SIZE: '4', OMPI_COMM_WORLD_LOCAL_RANK: '0', PMIX_NAMESPACE: 'ns1' }))
      .toMatchObject({ rank: 2, world_size: 4, local_rank: 0, launcher: 'mpirun', job_id: 'ns1' });
    expect(distributedFromEnv({ PMI_RANK: '1', PMI_SIZE: '2' })).toMatchObject({ rank: 1, world_size: 2, launcher: 'mpich' });
    expect(distributedFromEnv({ SLURM_PROCID: '5', SLURM_NTASKS: '6', SLURM_LOCALID: '1', SLURM_JOB_ID: '77', SLURM_STEP_ID: '0' }))
      .toMatchObject({ rank: 5, world_size: 6, local_rank: 1, launcher: 'srun', job_id: '77.0' });
  });

  it('variables that cannot be a rank are refused, naming them', () => {
    expect(() => distributedFromEnv({ RANK: '2', WORLD_SIZE: '2' })).toThrow('RANK=2 is not below WORLD_SIZE=2');
    expect(() => distributedFromEnv({ RANK: 'x', WORLD_SIZE: '2' })).toThrow("RANK='x' is not a rank");
    expect(() => distributedFromEnv({ RANK: '0' })).toThrow("WORLD_SIZE='' is not a world size");
  });
});
