import ImageCodecs
import KioskCore
import KioskRendering
import LinuxPlatform
import SystemCalls
import TextRendering

/// Which piece of text on the screen a layer is: one caption per picture,
/// the clock, the message.
enum TextKey: Hashable, Sendable {
    case caption(PictureKey)
    case clock
    case message
}

/// What a picture's caption is made from.
struct CaptionFacts: Hashable, Sendable {
    var path: String
    var title: String?
    var dateTaken: Int64?
    var people: String?
    var album: String?

    /// What the file says (`info`), and what its server says
    /// (``PictureFactsRegistry``), the file's own first.
    init(path: String, info: PictureInfo?) {
        self.path = path
        title = info?.caption
        dateTaken = info?.dateTaken
        guard let facts = PictureFactsRegistry.facts(of: path) else { return }
        if title == nil || title?.isEmpty == true { title = facts.title }
        if dateTaken == nil { dateTaken = facts.taken.flatMap { EXIFDateTaken.seconds(fromEXIF: Array($0.utf8.prefix(19))) } }
        people = facts.peopleWritten
        album = facts.album
    }

    /// The caption `template` makes of these facts, dates written by `dates`.
    func caption(_ template: CaptionTemplate, dates: DateWriter) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let folder = path.split(separator: "/").dropLast().last.map(String.init)
        return template.caption(
            value: { field in
                switch field {
                case .title: title
                case .file: name.lastIndex(of: ".").map { String(name[..<$0]) }.flatMap { $0.isEmpty ? nil : $0 } ?? name
                case .folder: folder
                case .people: people
                case .album: album
                case .date: nil
                }
            },
            date: { pattern in dateTaken.map { dates.write(pattern, at: $0) } })
    }
}

/// A piece of text to draw, with everything that decides its pixels: a
/// different job is a different layer.
struct TextJob: Hashable, Sendable {
    enum Words: Hashable, Sendable {
        case plain(String)
        /// The clock at `minute` (minutes since the epoch).
        case clock(StrftimePattern, minute: Int64)
        case caption(CaptionTemplate, CaptionFacts)
    }

    var words: Words
    var appearance: TextAppearance
    var rotation: Rotation
    /// The locale dates are written in (``TextSettings/locale``).
    var locale: String?
}

/// A job done: its layer (nil when the words came to nothing), and what the
/// operator should hear once (a font family substituted, no fonts at all).
struct TextOutcome: Sendable {
    var key: TextKey
    var job: TextJob
    var words: String
    var layer: OverlayLayer?
    var notes: [String]
}

/// Draws text jobs: on the ``TextWorker``'s thread for the show, or in line
/// for a snapshot and for tests that simulate time.
protocol TextDrawer: AnyObject {
    func draw(_ job: TextJob, key: TextKey)
    /// The outcomes finished since the last call; never waits.
    func takeFinished() -> [TextOutcome]
}

/// What does the drawing, on one thread: the fonts of each family, the
/// date writers of each locale, each opened once.
final class TextDrawing {
    private var renderers: [String: Result<TextRenderer, TextError>] = [:]
    private var dateWriters: [String: DateWriter] = [:]
    /// Notes already told: each once.
    private var told: Set<String> = []

    func outcome(of job: TextJob, key: TextKey) -> TextOutcome {
        var notes: [String] = []
        func note(_ text: String) { if told.insert(text).inserted { notes.append(text) } }
        let dates = dateWriter(job.locale)
        if let why = dates.note { note(why) }
        let words: String
        switch job.words {
        case .plain(let text): words = DisplayText.cleaned(text)
        case .clock(let pattern, let minute): words = DisplayText.cleaned(dates.write(pattern, at: minute * 60))
        case .caption(let template, let facts): words = DisplayText.cleaned(facts.caption(template, dates: dates))
        }
        guard !words.isEmpty else { return TextOutcome(key: key, job: job, words: words, layer: nil, notes: notes) }
        switch renderer(job.appearance.family) {
        case .failure(let error):
            note("\(error)")
            return TextOutcome(key: key, job: job, words: words, layer: nil, notes: notes)
        case .success(let renderer):
            if renderer.fonts.familyWasSubstituted {
                note("text_font \"\(job.appearance.family)\" is not installed: text is drawn in \(renderer.fonts.matchedFamily), fontconfig's nearest")
            }
            do {
                let layer = try renderer.layer(for: words, appearance: job.appearance, turnedBy: job.rotation)
                return TextOutcome(key: key, job: job, words: words, layer: layer, notes: notes)
            } catch {
                note("text \"\(words.prefix(40))\" could not be drawn: \(error)")
                return TextOutcome(key: key, job: job, words: words, layer: nil, notes: notes)
            }
        }
    }

    private func renderer(_ family: String) -> Result<TextRenderer, TextError> {
        if let known = renderers[family] { return known }
        let made: Result<TextRenderer, TextError>
        do { made = .success(TextRenderer(fonts: try FontLibrary(family: family))) } catch { made = .failure(error) }
        renderers[family] = made
        return made
    }

    private func dateWriter(_ locale: String?) -> DateWriter {
        if let known = dateWriters[locale ?? ""] { return known }
        let made = DateWriter(locale: locale)
        dateWriters[locale ?? ""] = made
        return made
    }
}

/// Draws text on a thread of its own: shaping and rasterising a caption
/// takes milliseconds, which the run loop never spends.
final class TextWorker: TextDrawer {
    private let thread: WorkerThread<TextKey, (TextKey, TextJob), TextOutcome>

    /// Readable when layers are finished: call ``takeFinished()``.
    var readyFD: Int32 { thread.readyFD }

    init() throws(SystemCallError) {
        thread = try WorkerThread {
            let drawing = TextDrawing()
            return { keyed in drawing.outcome(of: keyed.1, key: keyed.0) }
        }
    }

    func draw(_ job: TextJob, key: TextKey) { thread.submit((key, job), key: key) }
    func takeFinished() -> [TextOutcome] { thread.takeFinished() }
    func stop() { thread.stop() }
}

/// Draws each job at once, on the caller's thread: the snapshot, and tests
/// whose time is simulated.
final class InlineTextDrawer: TextDrawer {
    private let drawing = TextDrawing()
    private var finished: [TextOutcome] = []
    /// Drawn and not yet taken: what a worker's descriptor would say.
    var hasFinished: Bool { !finished.isEmpty }
    /// Jobs drawn, for "nothing drawn while the display is off".
    private(set) var drawn = 0

    func draw(_ job: TextJob, key: TextKey) {
        drawn += 1
        finished.append(drawing.outcome(of: job, key: key))
    }

    func takeFinished() -> [TextOutcome] {
        defer { finished = [] }
        return finished
    }
}
