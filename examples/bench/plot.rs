//! `--svg FILE`: the main table's 10-substep rows as a horizontal bar chart of ns per constraint
//! projection, one group of bars per scene (docs/bench.svg, shown in docs/performance.md). Plain
//! SVG text: a dozen rectangles need no plotting library.

use std::fmt::Write;

/// One bar: its scene (the group), its configuration (the legend) and its value [ns/projection].
pub struct Bar {
    pub scene: String,
    pub label: String,
    pub ns: f64,
}

/// Chart geometry [px].
const WIDTH: f64 = 760.0;
const LEFT: f64 = 200.0;
const RIGHT_MARGIN: f64 = 70.0;
const TOP: f64 = 48.0;
const BAR_HEIGHT: f64 = 16.0;
const GROUP_GAP: f64 = 14.0;
/// Fill per configuration, in the order configurations first appear.
const PALETTE: [&str; 5] = ["#9e9e9e", "#f4a261", "#2a9d8f", "#264653", "#e76f51"];

/// The chart as an SVG document: bars in the order given (consecutive bars of one scene form a
/// group), lengths proportional to `ns` with the largest spanning the plot width.
pub fn bar_chart_svg(title: &str, bars: &[Bar]) -> String {
    let max = bars.iter().map(|b| b.ns).fold(0.0, f64::max);
    let scale = if max > 0.0 { (WIDTH - LEFT - RIGHT_MARGIN) / max } else { 0.0 };
    let mut labels: Vec<&str> = Vec::new();
    let mut body = String::new();
    let mut y = TOP;
    for (k, bar) in bars.iter().enumerate() {
        let first_of_scene = k == 0 || bars[k - 1].scene != bar.scene;
        if first_of_scene && k > 0 {
            y += GROUP_GAP;
        }
        let colour = match labels.iter().position(|l| *l == bar.label) {
            Some(i) => PALETTE[i % PALETTE.len()],
            None => {
                labels.push(&bar.label);
                PALETTE[(labels.len() - 1) % PALETTE.len()]
            }
        };
        let text_y = y + BAR_HEIGHT - 4.0;
        if first_of_scene {
            let _ = writeln!(body, r#"<text x="8" y="{text_y}" font-weight="bold">{}</text>"#, bar.scene);
        }
        let _ = writeln!(body, r#"<text x="{}" y="{text_y}" text-anchor="end">{}</text>"#, LEFT - 6.0, bar.label);
        let length = bar.ns * scale;
        let _ = writeln!(
            body,
            r#"<rect x="{LEFT}" y="{y}" width="{length:.1}" height="{BAR_HEIGHT}" fill="{colour}"/>"#
        );
        let _ = writeln!(body, r#"<text x="{:.1}" y="{text_y}">{:.1}</text>"#, LEFT + length + 4.0, bar.ns);
        y += BAR_HEIGHT + 2.0;
    }
    let height = y + 12.0;
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{height}\" \
         font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"8\" y=\"24\" font-size=\"14\">{title}</text>\n{body}</svg>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bar(scene: &str, label: &str, ns: f64) -> Bar {
        Bar { scene: scene.into(), label: label.into(), ns }
    }

    /// The `width` of every `<rect>` but the background, in order.
    fn widths(svg: &str) -> Vec<f64> {
        svg.lines()
            .filter(|l| l.starts_with("<rect x="))
            .map(|l| l.split("width=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap())
            .collect()
    }

    #[test]
    fn bars_are_proportional_and_grouped_by_scene_with_one_colour_per_configuration() {
        let bars = [bar("grid 64²", "reference", 32.0), bar("grid 64²", "colour", 8.0), bar("tablecloth", "reference", 16.0)];
        let svg = bar_chart_svg("ns", &bars);
        let full = WIDTH - LEFT - RIGHT_MARGIN;
        assert_eq!(widths(&svg), vec![full, full / 4.0, full / 2.0]);
        assert_eq!(svg.matches("font-weight=\"bold\"").count(), 2, "one heading per scene");
        assert_eq!(svg.matches(PALETTE[0]).count(), 2, "both reference bars share a colour");
        assert_eq!(svg.matches(PALETTE[1]).count(), 1);
        assert!(svg.contains(">32.0</text>") && svg.contains(">8.0</text>"));
        assert!(widths(&bar_chart_svg("empty", &[])).is_empty());
    }
}
