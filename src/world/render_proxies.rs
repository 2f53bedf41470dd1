//! A world's render proxies (`crate::render_proxy`): each bound to one cloth, removed with it.

use super::World;
use crate::cloth::VertexLayout;
use crate::error::ClothError;
use crate::out::Out;
use crate::handle::ClothHandle;
use crate::render_proxy::{RenderProxy, RenderProxyDesc, RenderProxyHandle};
use std::mem::MaybeUninit;
use std::sync::Arc;

/// A render proxy slot: the cloth it draws and its binding (shared by the proxies of a cloth's
/// instances made with [`World::add_render_proxy_instance`]).
#[derive(Clone, Debug)]
pub(crate) struct ProxyEntry {
    pub cloth: ClothHandle,
    pub proxy: Arc<RenderProxy>,
}

impl World {
    /// Bind the render mesh of `desc`, given in the rest frame of `cloth`'s mesh (the frame it was
    /// created in), to that cloth's simulated surface ([`crate::render_proxy`]) and return the
    /// proxy's handle. Costs a search of the simulated triangles per render vertex on a grid (a
    /// 65 536-vertex proxy of a 64² cloth binds in milliseconds; docs/performance.md).
    /// Errors: `InvalidHandle` (`cloth`), those of the binding (`InvalidParameter` for
    /// `max_distance`; the mesh errors of a cloth's mesh; `ProxyVertexTooFar`); nothing is added
    /// on error.
    pub fn add_render_proxy(&mut self, cloth: ClothHandle, desc: &RenderProxyDesc) -> Result<RenderProxyHandle, ClothError> {
        let _fp = crate::fp_env::DefaultFpEnv::enter();
        let proxy = RenderProxy::bind(&self.cloth(cloth)?.model, desc)?;
        Ok(self.insert_proxy(cloth, Arc::new(proxy)))
    }

    /// A proxy of `cloth` sharing the binding of `source` (no search): `cloth` must share its
    /// model with `source`'s cloth (be an instance of it, or it of `cloth`, or both of a third;
    /// [`World::add_instance`]). A crowd of instanced capes binds its fine mesh once. Errors:
    /// `InvalidHandle` (either handle), `InvalidParameter` (`cloth`: of another mesh).
    pub fn add_render_proxy_instance(&mut self, source: RenderProxyHandle, cloth: ClothHandle) -> Result<RenderProxyHandle, ClothError> {
        let source = &self.render_proxy_entry(source)?.proxy;
        if !source.bound_to(&self.cloth(cloth)?.model) {
            let expected = "a cloth sharing the source proxy's cloth's mesh (an instance of it)";
            return Err(ClothError::InvalidParameter { name: "cloth", value: cloth.index as f64, expected });
        }
        let proxy = Arc::new(source.instance());
        Ok(self.insert_proxy(cloth, proxy))
    }

    fn insert_proxy(&mut self, cloth: ClothHandle, proxy: Arc<RenderProxy>) -> RenderProxyHandle {
        let (index, generation) = self.proxies.insert(ProxyEntry { cloth, proxy });
        RenderProxyHandle { index, generation }
    }

    /// Remove a render proxy. Errors: `InvalidHandle` (stale: removed, or its cloth removed).
    pub fn remove_render_proxy(&mut self, handle: RenderProxyHandle) -> Result<(), ClothError> {
        self.proxies.remove(handle.index, handle.generation).map(drop).ok_or(ClothError::InvalidHandle)
    }

    pub(crate) fn render_proxy_entry(&self, handle: RenderProxyHandle) -> Result<&ProxyEntry, ClothError> {
        self.proxies.get(handle.index, handle.generation).ok_or(ClothError::InvalidHandle)
    }

    /// The proxy behind `handle` and the cloth it draws. Errors: `InvalidHandle`.
    pub fn render_proxy(&self, handle: RenderProxyHandle) -> Result<(&RenderProxy, ClothHandle), ClothError> {
        let entry = self.render_proxy_entry(handle)?;
        Ok((&entry.proxy, entry.cloth))
    }

    /// The handle of the live render proxy in slot `index`, if any (as [`World::live_handle`]).
    pub fn live_render_proxy_handle(&self, index: u32) -> Option<RenderProxyHandle> {
        self.proxies.live_generation(index).map(|generation| RenderProxyHandle { index, generation })
    }

    /// Slots of render proxies (live or not): live ones have indices below it.
    pub(crate) fn proxy_slots(&self) -> u32 {
        self.proxies.iter().map(|(i, _)| i + 1).max().unwrap_or(0)
    }

    /// The world's thread pool, when it has one (more than one thread).
    pub(crate) fn pool(&self) -> Option<&rayon::ThreadPool> {
        self.pool.as_deref().map(|p| &**p)
    }

    /// Number of live render proxies.
    pub fn render_proxy_count(&self) -> usize {
        self.proxies.len()
    }

    /// [`RenderProxy::write_vertices`] of the proxy `handle` from its cloth's reads, split over
    /// the world's threads when it has more than one and the proxy more than
    /// [`crate::render_proxy::PROXY_CHUNK`] vertices (the same bits either way). Errors:
    /// `InvalidHandle`, those of [`RenderProxy::write_vertices`].
    pub fn write_render_proxy_vertices(&self, handle: RenderProxyHandle, buffer: &mut [u8], layout: VertexLayout, alpha: f32) -> Result<(), ClothError> {
        let buffer = crate::Out::from(buffer).into_uninit();
        self.write_render_proxy_vertices_uninit(handle, buffer, layout, alpha)
    }

    pub(crate) fn write_render_proxy_vertices_uninit(
        &self,
        handle: RenderProxyHandle,
        buffer: &mut [MaybeUninit<u8>],
        layout: VertexLayout,
        alpha: f32,
    ) -> Result<(), ClothError> {
        let entry = self.render_proxy_entry(handle)?;
        let reads = self.cloth(entry.cloth)?.reads();
        entry.proxy.write_vertices_uninit(reads, buffer, layout, alpha, self.pool())
    }

    /// [`RenderProxy::read_positions`] of the proxy `handle` from its cloth. Errors:
    /// `InvalidHandle`, `BufferSizeMismatch`.
    pub fn read_render_proxy_positions<'o>(&self, handle: RenderProxyHandle, out: impl Into<Out<'o, [f32; 3]>>) -> Result<(), ClothError> {
        let entry = self.render_proxy_entry(handle)?;
        entry.proxy.read_positions(self.cloth(entry.cloth)?.reads(), out)
    }

    /// [`RenderProxy::read_normals`] of the proxy `handle` from its cloth. Errors:
    /// `InvalidHandle`, `BufferSizeMismatch`.
    pub fn read_render_proxy_normals<'o>(&self, handle: RenderProxyHandle, out: impl Into<Out<'o, [f32; 3]>>) -> Result<(), ClothError> {
        let entry = self.render_proxy_entry(handle)?;
        entry.proxy.read_normals(self.cloth(entry.cloth)?.reads(), out)
    }

    /// Remove the proxies of `cloth` (its removal makes their handles stale).
    pub(crate) fn remove_proxies_of(&mut self, cloth: ClothHandle) {
        let of_cloth: Vec<(u32, u32)> = self
            .proxies
            .iter()
            .filter(|(_, e)| e.cloth == cloth)
            .filter_map(|(i, _)| self.proxies.live_generation(i).map(|g| (i, g)))
            .collect();
        for (index, generation) in of_cloth {
            self.proxies.remove(index, generation);
        }
    }
}
