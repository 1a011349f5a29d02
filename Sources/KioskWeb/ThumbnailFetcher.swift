import HTTPServer
import KioskCore
import LinuxPlatform
import SystemCalls

/// Thumbnails asked of kioskd off kioskd-web's loop. kioskd decodes the
/// item again (a large HEIC on a small board takes a second or more), and
/// the page's other requests (uploads, events, the live screen, a login)
/// must not wait for it: a thread of its own asks kioskd on a connection
/// of its own, one thumbnail at a time, while the request's connection
/// sleeps (``HTTPLater``); its answer is sent when the thread is done.
final class ThumbnailFetcher {
    private struct Job: Sendable {
        let serial: Int
        let index: Int
    }

    private struct Fetched: Sendable {
        let serial: Int
        let reply: [UInt8]
        let jpeg: [UInt8]?
        let problem: String?
    }

    private struct Waiting {
        let later: HTTPLater
        let name: String
        let cached: Bool
    }

    private let worker: WorkerThread<Int, Job, Fetched>
    private var registration: Registration?
    private var waiting: [Int: Waiting] = [:]
    private var serial = 0

    init(socket: String, loop: EventLoop) throws(SystemCallError) {
        worker = try WorkerThread {
            let kiosk = KioskLink(socket: socket)
            return { job in
                switch kiosk.thumbnail(job.index) {
                case .success(let (reply, jpeg)): return Fetched(serial: job.serial, reply: reply, jpeg: jpeg, problem: nil)
                case .failure(let error): return Fetched(serial: job.serial, reply: [], jpeg: nil, problem: error.description)
                }
            }
        }
        registration = try loop.register(worker.readyFD, name: "thumbnails") { [unowned self] _ in answerFetched() }
    }

    /// Item `index`'s thumbnail, answered when kioskd has made it, if the
    /// item is still the file named `name` (as `pictures` names it) when it
    /// is decoded: 409 otherwise, so a list a moment old never shows another
    /// picture under a name. `cached`: the address carries the file's version,
    /// so the browser may keep the answer a day.
    func fetch(index: Int, name: String, cached: Bool) -> HTTPLater {
        serial += 1
        let later = HTTPLater()
        waiting[serial] = Waiting(later: later, name: name, cached: cached)
        worker.submit(Job(serial: serial, index: index), key: serial)
        return later
    }

    /// Ends the thread; what waits is answered 503.
    func stop() {
        worker.stop()
        for (_, waiting) in waiting { waiting.later.answer(WebApp.json(503, [("ok", .bool(false)), ("error", .string("kioskd-web is stopping"))])) }
        waiting = [:]
    }

    private func answerFetched() {
        for fetched in worker.takeFinished() {
            guard let asked = waiting.removeValue(forKey: fetched.serial) else { continue }
            asked.later.answer(response(fetched, asked))
        }
    }

    private func response(_ fetched: Fetched, _ asked: Waiting) -> HTTPResponse {
        guard let jpeg = fetched.jpeg else {
            let problem = fetched.problem ?? "no thumbnail"
            // kioskd's own refusal (no such item, a broken file): its reason; else kioskd did not answer.
            if let refusal = WebApp.object(Array(problem.utf8)), refusal["ok"]?.bool == false {
                return WebApp.json(404, [("ok", .bool(false)), ("error", .string(refusal["error"]?.string ?? problem))])
            }
            return WebApp.json(503, [("ok", .bool(false)), ("error", .string(problem))])
        }
        // The same bytes, not only the same characters: the kernel's names are bytes.
        guard let made = WebApp.object(fetched.reply)?["name"]?.string, Array(made.utf8) == Array(asked.name.utf8) else {
            return WebApp.json(409, [("ok", .bool(false)), ("error", .string("the show changed: that picture is no longer \(asked.name); reload the list"))])
        }
        return HTTPResponse(
            status: 200, headers: [("Content-Type", "image/jpeg"), ("Cache-Control", asked.cached ? "private, max-age=86400" : "private, no-cache")],
            body: .bytes(jpeg))
    }
}
