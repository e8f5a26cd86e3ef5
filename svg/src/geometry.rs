//! Where things go, in whole pixels and hundredths of a pixel, and numbers written the same way
//! on every platform: integer arithmetic only, fixed-point text written here (no float
//! formatting, no locale).

use crate::lanes::LANE;

/// Space around the diagram and left of every line.
pub const MARGIN: u32 = 12;
/// Height of one lane (title line plus bar).
pub const LANE_HEIGHT: u32 = 44;
/// Top of the bar inside a lane, and its height.
pub const BAR_TOP: u32 = 18;
pub const BAR_HEIGHT: u32 = 22;
/// The memory bar under a shared lane whose tenants asked for memory: its gap and height, and
/// what it adds to the lane.
pub const MEMORY_GAP: u32 = 3;
pub const MEMORY_HEIGHT: u32 = 7;
pub const MEMORY_EXTRA: u32 = MEMORY_GAP + MEMORY_HEIGHT + 2;
/// Height of a line of 12 px text.
pub const LINE: u32 = 16;
/// The estimated width of one column of 12 px text (see `text::width`).
pub const COLUMN_PX: u32 = 7;

/// Hundredths of a pixel as SVG number text: `1250` → `12.5`, `7200` → `72`.
pub fn px(hundredths: u64) -> String {
    let (int, frac) = (hundredths / 100, hundredths % 100);
    match frac {
        0 => int.to_string(),
        f if f % 10 == 0 => format!("{int}.{}", f / 10),
        f => format!("{int}.{f:02}"),
    }
}

/// The horizontal extent of lanes in a diagram `width` pixels wide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bar {
    /// The bar's width in pixels.
    pub width: u32,
}

impl Bar {
    pub fn of(width: u32) -> Bar {
        Bar {
            width: width.saturating_sub(2 * MARGIN),
        }
    }

    /// A position in the lane (share units, `0..=LANE`) in hundredths of a pixel from the left
    /// edge of the diagram, rounded half up.
    pub fn x(self, units: u64) -> u64 {
        let units = u128::from(units.min(LANE));
        let scaled =
            (u128::from(self.width) * 100 * units * 2 + u128::from(LANE)) / (2 * u128::from(LANE));
        u64::from(MARGIN) * 100 + scaled as u64
    }
}

/// How many columns of text fit in `hundredths` of a pixel, less `padding` pixels.
pub fn columns_in(hundredths: u64, padding: u32) -> usize {
    (hundredths / 100).saturating_sub(u64::from(padding)) as usize / COLUMN_PX as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_fixed_point_text() {
        assert_eq!(px(0), "0");
        assert_eq!(px(1250), "12.5");
        assert_eq!(px(1205), "12.05");
        assert_eq!(px(7200), "72");
    }

    #[test]
    fn positions_round_and_tile() {
        let bar = Bar::of(720);
        assert_eq!(bar.width, 696);
        assert_eq!(bar.x(0), 1200);
        assert_eq!(bar.x(LANE), 1200 + 69_600);
        assert_eq!(bar.x(LANE / 2), 1200 + 34_800);
        // A third of 696 px is 232 px exactly; a seventh is 99.43 px.
        assert_eq!(bar.x(LANE / 3), 1200 + 23_200);
        assert_eq!(bar.x(LANE / 7), 1200 + 9_943);
        assert_eq!(bar.x(u64::MAX), bar.x(LANE));
        assert_eq!(columns_in(10_000, 8), 13);
        assert_eq!(columns_in(500, 8), 0);
    }
}
