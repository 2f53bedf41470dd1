//! The constraint layout repaired after a batch of cuts, in place: what the cuts touched and no
//! more. Stretch: edges moved to a new particle keep their place and colour (the new particle is
//! in no other edge of that colour), the edges the cuts added get colours of their own after the
//! others, coloured among themselves; bending: the hinges across cut edges are dropped, the others
//! keep their order and colours; the edges at each particle are listed again. The tethers are
//! searched again (`super::tethers`) and the strain limit finds its anchored order again.

use super::super::model::ClothModel;
use super::topology::NONE;
use super::work::TearWork;
use crate::constraints::colouring::lowest_particle;
use crate::constraints::layout::ConstraintLayout;
use crate::constraints::stretch::StretchArrays;

/// Repair `layout` for `model` after cuts that added the edges `edges_before..` (creation order)
/// and dropped the hinges `work.hinge_remap` marks [`NONE`], carrying the multipliers
/// `stretch_lambda` and `bend_lambda` (layout order) along. Allocates nothing within the room a
/// tearable cloth reserves.
pub(crate) fn repair_layout(layout: &mut ConstraintLayout, model: &ClothModel, work: &mut TearWork, edges_before: usize, stretch_lambda: &mut Vec<f32>, bend_lambda: &mut Vec<f32>) {
    let edges = &model.constraints.edges;
    let (creation, extra_from) = (&mut layout.edge_creation, &mut layout.extra_colours_from);
    // SAFETY: a particle a cut makes is in no other edge of the colours the edges it moves to it
    // keep (the cut splits one particle's edges between it and the new one), and the added edges
    // take colours of their own, greedily disjoint (`recolour_extra_edges`).
    unsafe {
        layout.stretch.edit(|s| {
            // Edges moved to new particles: the stored copies follow their creation entries.
            for (stored, &c) in s.edges.iter_mut().zip(creation.iter()) {
                *stored = edges[c as usize];
            }
            if s.colour_start.is_empty() {
                // Uncoloured (anchor order): the new edges go last.
                for (c, &edge) in edges.iter().enumerate().skip(edges_before) {
                    s.edges.push(edge);
                    s.rest_length.push(model.constraints.rest_length[c]);
                    creation.push(c as u32);
                    stretch_lambda.push(0.0);
                }
            } else if edges.len() > edges_before || extra_from.is_some() {
                recolour_extra_edges(s, creation, extra_from, model, work, edges_before, stretch_lambda);
            }
        })
    };

    // Hinges: drop the cut ones, colours kept (a colour may end up empty), corners followed.
    let creation = &mut layout.hinge_creation;
    // SAFETY: dropping hinges keeps a colour disjoint, and a corner the cuts move goes to the
    // copy a cut made of its particle, which only hinges that had that particle (at most one per
    // colour) take.
    unsafe {
        layout.bending.edit(|b| {
            let colours = b.colour_start.len().saturating_sub(1);
            let ranges = if colours == 0 { 1 } else { colours };
            let mut write = 0;
            for colour in 0..ranges {
                let (begin, end) = if colours == 0 { (0, b.hinges.len()) } else { (b.colour_start[colour] as usize, b.colour_start[colour + 1] as usize) };
                if colours > 0 {
                    b.colour_start[colour] = write as u32;
                }
                for k in begin..end {
                    let h = work.hinge_remap[creation[k] as usize];
                    if h == NONE {
                        continue;
                    }
                    b.hinges[write] = model.constraints.hinges[h as usize];
                    b.rest_angle[write] = b.rest_angle[k];
                    creation[write] = h;
                    bend_lambda[write] = bend_lambda[k];
                    write += 1;
                }
            }
            if colours > 0 {
                b.colour_start[colours] = write as u32;
            }
            b.hinges.truncate(write);
            b.rest_angle.truncate(write);
            creation.truncate(write);
            bend_lambda.truncate(write);
        })
    };

    list_edges_at_particles(layout, model.rest.len());
    layout.particle_count = model.rest.len();
}

/// The edges of the extra colours (those after `layout.extra_colours_from`, and the edges
/// `edges_before..` the cuts added) coloured again among themselves: each, in creation order,
/// takes the lowest extra colour neither of its particles has; within a colour they are stored by
/// lowest particle (the order the team's look-ahead bounds need).
fn recolour_extra_edges(
    s: StretchArrays<'_>,
    edge_creation: &mut Vec<u32>,
    extra_colours_from: &mut Option<usize>,
    model: &ClothModel,
    work: &mut TearWork,
    edges_before: usize,
    stretch_lambda: &mut Vec<f32>,
) {
    let first = *extra_colours_from.get_or_insert(s.colour_start.len() - 1);
    let begin = s.colour_start[first] as usize;
    let edges = &model.constraints.edges;
    // The multipliers of the extra edges by creation index, the new ones 0.
    work.lambda.clear();
    work.lambda.resize(edges.len(), 0.0);
    work.extra.clear();
    for k in begin..s.edges.len() {
        let c = edge_creation[k];
        work.lambda[c as usize] = stretch_lambda[k];
        work.extra.push((c, 0));
    }
    work.extra.extend((edges_before as u32..edges.len() as u32).map(|c| (c, 0)));
    work.extra.sort_unstable();
    // Greedy colours (bit c of a particle's mask: it is in extra colour c); beyond 64, one colour
    // per edge.
    work.colours_of.clear();
    work.colours_of.resize(model.rest.len(), 0);
    let mut overflow = 64;
    for entry in work.extra.iter_mut() {
        let [i, j] = edges[entry.0 as usize];
        let taken = work.colours_of[i as usize] | work.colours_of[j as usize];
        let colour = (!taken).trailing_zeros();
        if colour < 64 {
            work.colours_of[i as usize] |= 1 << colour;
            work.colours_of[j as usize] |= 1 << colour;
            entry.1 = colour;
        } else {
            entry.1 = overflow;
            overflow += 1;
        }
    }
    // By colour, then lowest particle, then creation index.
    work.extra.sort_unstable_by_key(|&(c, colour)| (colour, lowest_particle(&edges[c as usize]), c));
    s.edges.truncate(begin);
    s.rest_length.truncate(begin);
    edge_creation.truncate(begin);
    stretch_lambda.truncate(begin);
    s.colour_start.truncate(first + 1);
    let mut previous = None;
    for &(c, colour) in &work.extra {
        if previous.is_some_and(|p| p != colour) {
            s.colour_start.push(s.edges.len() as u32);
        }
        previous = Some(colour);
        s.edges.push(edges[c as usize]);
        s.rest_length.push(model.constraints.rest_length[c as usize]);
        edge_creation.push(c);
        stretch_lambda.push(work.lambda[c as usize]);
    }
    if !work.extra.is_empty() {
        s.colour_start.push(s.edges.len() as u32);
    }
}

/// The edges at each particle (`particle_edge_start`, `particle_edges`), in storage order, in the
/// layout's own vectors.
fn list_edges_at_particles(layout: &mut ConstraintLayout, particle_count: usize) {
    let (start, list) = (&mut layout.particle_edge_start, &mut layout.particle_edges);
    let edges = layout.stretch.edges();
    start.clear();
    start.resize(particle_count + 1, 0);
    for &p in edges.iter().flatten() {
        start[p as usize + 1] += 1;
    }
    for p in 0..particle_count {
        start[p + 1] += start[p];
    }
    list.clear();
    list.resize(2 * edges.len(), 0);
    // Filled from each row's end in decreasing edge order: increasing once filled, and start[p + 1]
    // ends at row p's beginning.
    for (e, pair) in edges.iter().enumerate().rev() {
        for &p in pair.iter().rev() {
            start[p as usize + 1] -= 1;
            list[start[p as usize + 1] as usize] = e as u32;
        }
    }
    for p in 0..particle_count {
        start[p] = start[p + 1];
    }
    start[particle_count] = list.len() as u32;
}
