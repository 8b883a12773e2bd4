//! The MPI transport of `hlox run --mpi`: each rank of an `mpirun` job is
//! one device, and every collective is an `MPI_Allgather` of the ranks'
//! contributions on `MPI_COMM_WORLD` (docs/multi-device.md). Open MPI from
//! Debian (`libopenmpi-dev`, `openmpi-bin`), through the `mpi` crate.

use anyhow::Result;
use hlox_cpu::collectives::{CollectiveError, Communicator};
use std::sync::Arc;

#[cfg(feature = "mpi")]
mod imp {
    use super::*;
    use mpi::topology::{Communicator as _, SimpleCommunicator};
    use mpi::traits::CommunicatorCollectives;

    /// `MPI_COMM_WORLD` of this process (MPI initialized on creation and
    /// finalized when it is dropped).
    pub struct MpiWorld {
        world: SimpleCommunicator,
        rank: usize,
        size: usize,
        _universe: mpi::environment::Universe,
    }

    // SAFETY: MPI is initialized with MPI_THREAD_FUNNELED: every call below
    // is made by the thread that runs the device's program, the thread that
    // created the world (collectives run as custom calls on the calling
    // thread of `DeviceExecutable::execute_as`).
    unsafe impl Send for MpiWorld {}
    unsafe impl Sync for MpiWorld {}

    impl MpiWorld {
        pub fn rank(&self) -> usize {
            self.rank
        }
    }

    pub fn world() -> Result<MpiWorld> {
        let (universe, _) = mpi::initialize_with_threading(mpi::Threading::Funneled)
            .ok_or_else(|| anyhow::anyhow!("MPI is already initialized in this process"))?;
        let world = universe.world();
        let rank = world.rank() as usize;
        let size = world.size() as usize;
        Ok(MpiWorld {
            world,
            rank,
            size,
            _universe: universe,
        })
    }

    impl Communicator for MpiWorld {
        fn size(&self) -> usize {
            self.size
        }
        fn all_gather(
            &self,
            _rank: usize,
            _collective: &str,
            data: &[u8],
        ) -> Result<Arc<Vec<u8>>, CollectiveError> {
            let mut all = vec![0u8; data.len() * self.size];
            self.world.all_gather_into(data, &mut all[..]);
            Ok(Arc::new(all))
        }
        fn abort(&self, rank: usize, message: &str) {
            // Every other rank may be waiting in a collective: stop the job.
            eprintln!("hlox: rank {rank} failed, stopping every rank: {message}");
            self.world.abort(1);
        }
    }
}

#[cfg(feature = "mpi")]
pub use imp::world;

#[cfg(not(feature = "mpi"))]
pub struct MpiWorld;

#[cfg(not(feature = "mpi"))]
impl MpiWorld {
    pub fn rank(&self) -> usize {
        0
    }
}

#[cfg(not(feature = "mpi"))]
impl Communicator for MpiWorld {
    fn size(&self) -> usize {
        1
    }
    fn all_gather(&self, _: usize, c: &str, _: &[u8]) -> Result<Arc<Vec<u8>>, CollectiveError> {
        Err(CollectiveError::Transport {
            collective: c.to_string(),
            message: "hlox was built without MPI".into(),
        })
    }
    fn abort(&self, _: usize, _: &str) {}
}

#[cfg(not(feature = "mpi"))]
pub fn world() -> Result<MpiWorld> {
    anyhow::bail!(
        "this hlox was built without MPI: install libopenmpi-dev and libclang-dev \
         (make deps does), then build hlox-cli with its default `mpi` feature"
    )
}
