//! `hlox run --devices N` (N Host devices, threads of this process),
//! `hlox run --mpi` (each MPI rank one device) and `hlox run --platform
//! cuda --devices N` (N GPUs, collectives through NCCL):
//! docs/multi-device.md.

use crate::commands::{self, Plugins};
use crate::Platform;
use anyhow::{Context, Result};
use hlox_cpu::collectives::{
    first_failure, with_device, Communicator, DeviceContext, DeviceExecutable, InProcess,
};
use hlox_hlo::load::load_module;
use hlox_hlo::Literal;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// How the devices of a run are made.
pub enum Launch {
    /// N threads of this process.
    Threads(usize),
    /// This process is one rank of an MPI job.
    Mpi,
}

pub struct DeviceArgs<'a> {
    pub file: &'a Path,
    pub inputs: &'a [std::path::PathBuf],
    pub plugins: &'a Plugins<'a>,
    pub out_dir: Option<&'a Path>,
    pub interpret: bool,
    pub random: Option<u64>,
    pub dump_dir: Option<&'a Path>,
    pub collective_timeout: f64,
}

pub fn run(launch: Launch, a: &DeviceArgs<'_>) -> Result<()> {
    let m = load_module(a.file)?;
    let registry = a.plugins.registry(Platform::Host)?;
    // Every device (every rank) reads the global inputs.
    let args = commands::inputs_or_random(a.file, &m, a.inputs, a.random)?;
    let refs: Vec<&Literal> = args.iter().collect();
    let timeout = Duration::from_secs_f64(a.collective_timeout.max(0.001));
    let (comm, ranks): (Arc<dyn Communicator>, Vec<usize>) = match launch {
        Launch::Threads(n) => (Arc::new(InProcess::new(n, timeout)), (0..n).collect()),
        Launch::Mpi => {
            let c = crate::mpi::world()?;
            let rank = c.rank();
            (Arc::new(c), vec![rank])
        }
    };
    let n = comm.size();
    let results: Vec<Result<Literal>> = if a.interpret {
        let mut m = m.clone();
        let topology = hlox_passes::spmd::expand_spmd(&mut m, n as i64)
            .with_context(|| format!("expanding {} for {n} devices", a.file.display()))?;
        let options = commands::execute_options();
        let run_one = |rank: usize| -> Result<Literal> {
            let ctx = DeviceContext {
                rank,
                topology,
                comm: comm.clone(),
            };
            let r = with_device(ctx, || {
                hlox_eval::evaluate_with_registry_options(&m, &args, &registry, &options)
            });
            if let Err(e) = &r {
                comm.abort(rank, &e.to_string());
            }
            Ok(r?)
        };
        std::thread::scope(|s| {
            let hs: Vec<_> = ranks.iter().map(|&r| s.spawn(move || run_one(r))).collect();
            hs.into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err(anyhow::anyhow!("a device thread panicked")))
                })
                .collect()
        })
    } else {
        let options = commands::compile_options(registry, a.dump_dir);
        let mut exe: DeviceExecutable = hlox_cpu::collectives::compile_for_devices(&m, n, &options)
            .with_context(|| format!("compiling {} for {n} devices", a.file.display()))?;
        exe.set_collective_timeout(timeout);
        let run_opts = commands::execute_options();
        match launch {
            Launch::Threads(_) => {
                let r = exe.execute(&refs, &run_opts);
                match r {
                    Ok(v) => v.into_iter().map(Ok).collect(),
                    Err(e) => vec![Err(e.into())],
                }
            }
            Launch::Mpi => {
                let rank = ranks[0];
                let r = exe.execute_as(rank, comm.clone(), &refs, &run_opts);
                let r = first_failure(vec![r]).map(|mut v| v.swap_remove(0));
                vec![r.map_err(|e| match e {
                    hlox_cpu::collectives::DevicesError::Device { source, .. } => {
                        anyhow::anyhow!("rank {rank}: {source}")
                    }
                    e => e.into(),
                })]
            }
        }
    };
    let mut out = None;
    for (k, r) in results.into_iter().enumerate() {
        let lit = r.with_context(|| format!("running {}", a.file.display()))?;
        if k == 0 {
            out = Some(lit);
        }
    }
    let Some(result) = out else {
        anyhow::bail!("no device ran");
    };
    // Rank 0 writes the results (every rank holds the same global values).
    if ranks.first() == Some(&0) {
        commands::write_outputs(&result, a.out_dir, true)?;
    }
    Ok(())
}

/// `hlox run --platform cuda --devices N`: GPUs `0..N` of this process,
/// collectives through NCCL (`hlox_cuda::spmd::CudaDevices`). Says what is
/// missing: the `nccl` feature, the driver, libnccl or GPUs.
pub fn run_cuda(n: usize, a: &DeviceArgs<'_>) -> Result<()> {
    anyhow::ensure!(
        !a.interpret,
        "--interpret runs the evaluator on the CPU; drop --platform cuda or --interpret"
    );
    anyhow::ensure!(
        commands::sandbox_options().is_none(),
        "--sandbox (and --check-results, --repro-dir) run custom calls compiled for the Host; \
         drop --platform cuda"
    );
    if !cfg!(feature = "nccl") {
        return Err(hlox_cuda::spmd::DevicesError::NoNcclFeature.into());
    }
    let m = load_module(a.file)?;
    let registry = a.plugins.registry(Platform::Cuda)?;
    let args = commands::inputs_or_random(a.file, &m, a.inputs, a.random)?;
    let refs: Vec<&Literal> = args.iter().collect();
    // GPU 0's architecture for every device's PTX (an error naming
    // libcuda.so without a driver).
    let sm = hlox_cuda::CudaClient::new(0)
        .and_then(|c| c.sm())
        .context("opening GPU 0")?;
    let mut options = commands::compile_options(registry, a.dump_dir);
    options.sm = hlox_cuda::runtime::target_sm(&sm);
    let spmd = hlox_cuda::spmd::compile_for_devices(&m, n, &options)
        .with_context(|| format!("compiling {} for {n} CUDA devices", a.file.display()))?;
    let mut gpus = hlox_cuda::spmd::CudaDevices::load(spmd)
        .with_context(|| format!("loading {} on {n} GPUs", a.file.display()))?;
    gpus.set_collective_timeout(Duration::from_secs_f64(a.collective_timeout.max(0.001)));
    let mut results = gpus
        .execute(&refs)
        .with_context(|| format!("running {}", a.file.display()))?;
    anyhow::ensure!(!results.is_empty(), "no device ran");
    commands::write_outputs(&results.swap_remove(0), a.out_dir, true)
}
