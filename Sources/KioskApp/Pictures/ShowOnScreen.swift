import KioskCore

/// The strip's position and the pictures for it: what the run loop draws
/// from, and what it tells the decode worker to prepare.
struct ShowOnScreen {
    var pictures: ShowPictures
    let layout: ShowLayout
    var position: Double
    var direction: TravelDirection = .forward
    var plan = PreloadPlan()

    init(pictures: ShowPictures, layout: ShowLayout, position: Double) {
        self.pictures = pictures
        self.layout = layout
        self.position = position
    }

    /// The playlist items in slots on screen now.
    var itemsOnScreen: Set<Int> {
        let index = pictures.index
        return Set(layout.geometry.visibleSlots(at: position).compactMap { index.item(forSlot: $0.index) })
    }

    /// True when every slot on screen has its picture.
    var allOnScreen: Bool { itemsOnScreen.allSatisfy { pictures.picture($0) != nil } }

    /// Files to decode next, most urgent first (and drops what is no longer
    /// wanted from the cache).
    mutating func wanted() -> [String] {
        pictures.want(plan.items(layout.geometry, at: position, travelling: direction, playlist: pictures.index))
    }

    /// What a batch of finished decodes changed.
    struct Change {
        var log: [String] = []
        /// A picture on screen arrived or the playlist changed: draw a frame.
        var onScreen = false
        /// Files left the playlist: the worker needs a new list.
        var playlist = false
        /// The items that left, in order, each numbered in the playlist as
        /// it was just before it left.
        var removed: [Int] = []
    }

    mutating func take(_ outcomes: [DecodeOutcome]) -> Change {
        var change = Change()
        for outcome in outcomes {
            switch pictures.accept(outcome) {
            case .stored:
                if case .decoded(let path, _) = outcome,
                   itemsOnScreen.contains(where: { pictures.playlist[$0] == path }) {
                    change.onScreen = true
                }
            case .discarded:
                break
            case .dropped(let line, let item):
                change.log.append(line)
                change.removed.append(item)
                change.onScreen = true
                change.playlist = true
            }
        }
        return change
    }
}
