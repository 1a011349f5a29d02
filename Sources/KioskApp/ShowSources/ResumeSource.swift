import KioskCore
import LinuxPlatform
import SystemCalls

/// Keeps the centred picture in the state directory (``ResumeFile``), so
/// a restart (a crash, an update, a power cut) resumes on it: written when
/// the strip comes to rest on another picture, at most once a minute
/// (``SavePacing``), and when the show stops. A directory that cannot be
/// written is reported once, and the show goes on without it.
final class ResumeSource: ShowSource {
    let file: ResumeFile
    private var pacing: SavePacing
    private let log: (LogLine) -> Void
    private var deadline: Deadline?
    private var events: ShowSubscription?
    private var broken = false

    init(file: ResumeFile, log: @escaping (LogLine) -> Void) {
        self.file = file
        self.log = log
        file.makeDirectory()
        pacing = SavePacing(written: file.read())
    }

    func attach(to loop: EventLoop, controller: ShowController) throws(SystemCallError) {
        let clock = controller.clock
        let deadline = loop.deadline(named: "resume file") { [unowned self] now in writeIfDue(at: now) }
        self.deadline = deadline
        // The show's last event (stopped) comes after the loop has ended: the job holds its sources until then.
        events = controller.subscribe { [unowned self, unowned controller] event in
            switch event {
            case .ready(_, _, let file?), .pictureCentred(_, let file, _, _):
                pacing.centred(file)
                writeIfDue(at: clock())
            case .stopped:
                // The way out: whatever the show is on now, at once.
                let show = controller.snapshot
                if let item = show.centredItem { pacing.centred(show.playlist[item]) }
                if let pending = pacing.pending { write(pending, at: clock()) }
            default:
                break
            }
        }
    }

    private func writeIfDue(at now: Double) {
        if let picture = pacing.due(at: now) { write(picture, at: now) }
        deadline?.arm(at: broken ? nil : pacing.nextWrite)
    }

    private func write(_ picture: String, at now: Double) {
        guard !broken else { return }
        do {
            try file.write(picture)
            pacing.wrote(picture, at: now)
        } catch {
            broken = true
            log(.warning("cannot keep the centred picture in \(file.directory) (\(error)): the show will not resume on it after a restart"))
        }
    }
}
