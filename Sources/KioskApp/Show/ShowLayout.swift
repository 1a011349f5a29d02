import KioskCore
import KioskRendering

/// The layout for a panel, with the log lines an operator should see about it.
struct ShowLayout {
    let geometry: CarouselGeometry
    let renderer: FrameRenderer
    /// Bytes of decoded pictures to keep (`cache_mb`, or derived from the slot).
    let cacheBudget: Int
    /// Captions, the clock and messages: how they look and what they say.
    let text: TextSettings
    /// Whether the display may move the strip (`panning`).
    let panning: PanningSetting
    let notes: [String]

    init(settings: KioskSettings, panel: PixelSize) throws(SettingError) {
        let logical = settings.display.rotation.logicalSize(of: panel)
        geometry = try CarouselGeometry(screen: logical, settings: settings.layout)
        renderer = FrameRenderer(
            compositor: StripCompositor(geometry: geometry, background: settings.layout.background, alignment: settings.layout.alignment),
            rotation: settings.display.rotation)
        text = settings.text
        panning = settings.display.panning
        var notes: [String] = []
        if geometry.neighboursHiddenAtRest {
            notes.append("image_width \(geometry.slotWidth) px and spacing \(geometry.spacing) px leave no room for the "
                + "neighbours on a \(logical.width) px screen: only the centred picture shows at rest")
        }
        let plan = PreloadPlan()
        let minimum = plan.minimumBudget(geometry)
        if let megabytes = settings.cacheMegabytes {
            cacheBudget = max(minimum, megabytes << 20)
            if megabytes << 20 < minimum {
                notes.append("cache_mb \(megabytes) cannot hold the \(geometry.maximumVisibleSlots) pictures that can be "
                    + "on screen at once: using \((minimum + (1 << 20) - 1) >> 20) MiB")
            }
        } else {
            cacheBudget = plan.defaultBudget(geometry)
        }
        self.notes = notes
    }
}
