import ImageCodecs
import KioskCore

/// The pictures around the strip's position: which are on screen, which to
/// decode next (the preload plan, in the direction of travel), and what a
/// batch of finished decodes changed. Only this neighbourhood is kept in memory.
struct PictureNeighbourhood {
    var pictures: DecodedPictures
    let geometry: CarouselGeometry
    var position: Double
    var direction: TravelDirection = .forward
    var plan = PreloadPlan()

    init(pictures: DecodedPictures, geometry: CarouselGeometry, position: Double) {
        self.pictures = pictures
        self.geometry = geometry
        self.position = position
    }

    /// The playlist items in slots on screen now.
    var itemsOnScreen: Set<Int> {
        let index = pictures.index
        return Set(geometry.visibleSlots(at: position).compactMap { index.item(forSlot: $0.index) })
    }

    /// True when every slot on screen has its picture.
    var allOnScreen: Bool { itemsOnScreen.allSatisfy { pictures.picture($0) != nil } }

    /// Files to decode next, most urgent first (and drops what is no longer
    /// wanted from the cache).
    mutating func wanted() -> [String] {
        pictures.want(plan.items(geometry, at: position, travelling: direction, playlist: pictures.index))
    }

    /// What a batch of finished decodes brought.
    struct Arrivals {
        /// A picture on screen arrived: draw a frame.
        var onScreen = false
        /// Files that cannot be shown, still in the playlist.
        var refused: [ImageFileError] = []
    }

    mutating func take(_ outcomes: [DecodeOutcome]) -> Arrivals {
        var arrivals = Arrivals()
        for outcome in outcomes {
            switch pictures.accept(outcome) {
            case .stored(let path):
                if itemsOnScreen.contains(where: { pictures.playlist[$0] == path }) { arrivals.onScreen = true }
            case .discarded:
                break
            case .refused(let error):
                arrivals.refused.append(error)
            }
        }
        return arrivals
    }
}
