import ArgumentParser
import ImageCodecs
import KioskApp
import KioskCore

#if canImport(Glibc)
import Glibc
#endif

struct Snapshot: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render one frame of the show to a PNG and exit.",
        discussion: "The PNG holds exactly the pixels the display would scan out for the same state.")

    @OptionGroup var layout: LayoutOptions

    @Option(help: ArgumentHelp("Screen size, e.g. 1920x1080.", valueName: "wxh"))
    var size: String

    @Option(help: ArgumentHelp("Where to write the PNG.", valueName: "file.png"))
    var out: String

    @Option(help: "The picture in the centre (0 is the first file; any integer, it wraps). With --portrait-pairs, the slot that shows it.")
    var index: Int = 0

    @Option(help: ArgumentHelp("Strip position in slots (a portrait pair is one), e.g. 2.5 for halfway from 2 to 3. Default: --index.", valueName: "p"))
    var position: Double?

    @Option(help: ArgumentHelp(
        "The frame animated GIFs at least half on screen show, and a video clip or motion photo resting in the centre: 0 is the first (what a still shows), counted across plays as the show counts them.",
        valueName: "n"))
    var frame: Int = 0

    @Option(help: ArgumentHelp("The centred picture zoomed by z (1 to --max-zoom, and never past the photo's own pixels), sharp.", valueName: "z"))
    var zoom: Double = 1

    @Option(help: ArgumentHelp("With --zoom: the point of the picture put in the middle, each 0 to 1 of its width and height. Default 0.5,0.5.", valueName: "x,y"))
    var focus: String = "0.5,0.5"

    @Option(help: ArgumentHelp("A message over everything, as kioskctl message shows it (\\n in it is a line break).", valueName: "text"))
    var message: String?

    @Option(help: ArgumentHelp("The time the clock shows, in seconds since the epoch (date +%s). Default: now.", valueName: "seconds"))
    var time: Double?

    /// `--focus` as two numbers in 0...1.
    var focusPoint: (x: Double, y: Double)? {
        let parts = focus.split(separator: ",").map { Double(String($0.filter { $0 != " " })) }
        guard parts.count == 2, let x = parts[0], let y = parts[1], (0...1).contains(x), (0...1).contains(y) else { return nil }
        return (x, y)
    }

    func validate() throws {
        guard zoom.isFinite, zoom >= 1 else { throw ValidationError("--zoom must be 1 or more (got \(zoom))") }
        guard focusPoint != nil else { throw ValidationError("--focus must be two numbers from 0 to 1, e.g. 0.5,0.5 (got \"\(focus)\")") }
        guard PixelSize(parsing: size) != nil else {
            throw ValidationError("--size must be WIDTHxHEIGHT with both above zero, e.g. 1920x1080 (got \"\(size)\")")
        }
        if let position, !position.isFinite {
            throw ValidationError("--position must be a finite number (got \(position))")
        }
        guard frame >= 0 else { throw ValidationError("--frame must be 0 or more (got \(frame))") }
        if let time, !time.isFinite || time < 0 { throw ValidationError("--time must be seconds since the epoch, like date +%s gives (got \(time))") }
        if let message, message.utf8.count > ControlRequest.maximumMessageBytes {
            throw ValidationError("--message: at most \(ControlRequest.maximumMessageBytes) bytes of text")
        }
    }

    func run() throws {
        logLibraryMessages()
        let job: SnapshotJob
        let result: SnapshotJob.Result
        do {
            var snapshot = SnapshotJob(settings: try layout.settings(), screen: PixelSize(parsing: size)!,
                                       position: position ?? Double(index), frame: frame)
            if position == nil { snapshot.centredItem = index }
            snapshot.zoom = zoom
            snapshot.focus = focusPoint!
            snapshot.message = message.map { Substring($0).replacingEscapedLineBreaks() }
            snapshot.time = time
            job = snapshot
            result = try job.run()
        } catch {
            fail("\(error)")
        }
        for line in result.log { log(.warning(line)) }
        do {
            try writeWholeFile(out, bytes: try PNGCodec.encode(result.frame))
        } catch {
            fail("cannot write the snapshot: \(error)")
        }
        print("wrote \(out): \(job.screen) at position \(result.position), \(result.playlist.count) picture(s) in the playlist")
    }
}

