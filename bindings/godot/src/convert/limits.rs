//! Per-vertex limits of worn cloth (docs/design.md, "Character cloth"): a max distance or backstop
//! distance in metres per render vertex, painted in a vertex colour channel times a scale or
//! given as an array, with welded copies made to agree as the core requires.

use super::pins::ColorChannel;
use std::fmt;

/// Where a per-vertex limit comes from (the inspector's choice).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LimitSource<'a> {
    /// No limit.
    None,
    /// Colour channel value (0..1) × scale \[m\].
    Color(ColorChannel, f32),
    /// One value \[m\] per render vertex.
    Array(&'a [f32]),
}

impl<'a> LimitSource<'a> {
    /// From the inspector: `source` 0 none, 1 colour channel `channel` × `scale`, 2 `array`;
    /// `None` for a source or channel out of range.
    pub fn from_inspector(source: i64, channel: i64, scale: f32, array: &'a [f32]) -> Option<Self> {
        match source {
            0 => Some(LimitSource::None),
            1 => Some(LimitSource::Color(
                ColorChannel::from_index(channel)?,
                scale,
            )),
            2 => Some(LimitSource::Array(array)),
            _ => None,
        }
    }
}

/// A limit that does not fit the surface.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LimitError {
    /// Painted in vertex colours, but the surface has none.
    NoColors,
    /// The array's length is not the surface's vertex count.
    Length {
        /// Entries given.
        got: usize,
        /// Vertices of the surface.
        vertex_count: usize,
    },
}

impl fmt::Display for LimitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LimitError::NoColors => write!(
                f,
                "the limit is painted in vertex colours, but the surface has none"
            ),
            LimitError::Length { got, vertex_count } => write!(
                f,
                "{got} values for {vertex_count} vertices (need one per vertex)"
            ),
        }
    }
}

impl std::error::Error for LimitError {}

/// The limit per render vertex \[m\] (`vertex_count` values), `None` for [`LimitSource::None`].
/// `colors`: the surface's `[r, g, b, a]` per vertex, if any. The core checks the values (≥ 0,
/// finite) when they are set.
pub fn per_vertex(
    source: LimitSource,
    colors: Option<&[[f32; 4]]>,
    vertex_count: usize,
) -> Result<Option<Vec<f32>>, LimitError> {
    match source {
        LimitSource::None => Ok(None),
        LimitSource::Color(channel, scale) => {
            let colors = colors
                .filter(|c| c.len() == vertex_count)
                .ok_or(LimitError::NoColors)?;
            Ok(Some(
                colors.iter().map(|c| scale * c[channel as usize]).collect(),
            ))
        }
        LimitSource::Array(values) if values.len() == vertex_count => Ok(Some(values.to_vec())),
        LimitSource::Array(values) => Err(LimitError::Length {
            got: values.len(),
            vertex_count,
        }),
    }
}

/// Give every welded copy of a vertex its first copy's value (render order), in place:
/// `particle_of_vertex` the cloth's render vertex → particle map (`Cloth::particle_map`), `values`
/// one entry per render vertex. Split UV seams of a painted or skinned mesh often differ by
/// rounding, which the core refuses.
pub fn unify_welded<T: Copy>(particle_of_vertex: &[u32], values: &mut [T]) {
    let mut first = vec![usize::MAX; particle_of_vertex.len()];
    for (v, &p) in particle_of_vertex.iter().enumerate().take(values.len()) {
        let Some(slot) = first.get_mut(p as usize) else {
            continue;
        };
        if *slot == usize::MAX {
            *slot = v;
        } else {
            values[v] = values[*slot];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn painted_and_array_limits_per_vertex() {
        let colors = [[0.1, 0.2, 0.3, 0.4], [1.0, 0.5, 0.0, 1.0]];
        let painted = per_vertex(
            LimitSource::Color(ColorChannel::Green, 0.2),
            Some(&colors),
            2,
        )
        .unwrap()
        .unwrap();
        assert_eq!(painted, vec![0.2 * 0.2, 0.2 * 0.5]);
        assert_eq!(
            per_vertex(LimitSource::Color(ColorChannel::Red, 1.0), None, 2),
            Err(LimitError::NoColors)
        );
        assert_eq!(
            per_vertex(LimitSource::Array(&[0.1, 0.2]), None, 2).unwrap(),
            Some(vec![0.1, 0.2])
        );
        let e = per_vertex(LimitSource::Array(&[0.1]), None, 2).unwrap_err();
        assert_eq!(
            e,
            LimitError::Length {
                got: 1,
                vertex_count: 2
            }
        );
        assert!(e.to_string().contains("1 values for 2 vertices"));
        assert_eq!(per_vertex(LimitSource::None, None, 2), Ok(None));
        assert_eq!(
            LimitSource::from_inspector(1, 2, 0.5, &[]),
            Some(LimitSource::Color(ColorChannel::Blue, 0.5))
        );
        assert_eq!(LimitSource::from_inspector(1, 4, 0.5, &[]), None);
        assert_eq!(LimitSource::from_inspector(3, 0, 0.5, &[]), None);
    }

    #[test]
    fn welded_copies_take_their_first_copys_value() {
        let mut values = [[1.0f32, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]];
        unify_welded(&[0, 1, 0, 1], &mut values);
        assert_eq!(values, [[1.0, 2.0], [3.0, 4.0], [1.0, 2.0], [3.0, 4.0]]);
    }
}
