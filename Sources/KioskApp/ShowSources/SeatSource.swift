import KioskCore
import LinuxPlatform
import SeatAccess
import SystemCalls

/// The seat as the show sees it: libseat's ``Seat``, or a test's.
protocol ShowSeat: AnyObject {
    /// Readable when there is news: ``dispatch()`` then calls the handlers.
    var descriptor: Int32 { get }
    var onEnable: () -> Void { get set }
    var onDisable: () -> Void { get set }
    func dispatch() throws
    /// Tells the seat manager the devices are out of use.
    func acknowledgeDisable() throws
}

extension Seat: ShowSeat {}

/// The seat as a source of the show (its descriptor is one more on the
/// loop, handled with the display's, before any frame is drawn): when it
/// is disabled (a VT switch, another session) the show stops drawing and
/// the input gives its devices back, then the seat manager is answered at
/// once; when it is enabled the show draws where it now is, with a full
/// mode set, and the input devices are opened again. A seat manager that
/// goes away ends the show with a failure: systemd starts kioskd again.
final class SeatSource: ShowSource {
    private let seat: any ShowSeat
    private let log: (LogLine) -> Void
    private var registration: Registration?

    init(seat: any ShowSeat, log: @escaping (LogLine) -> Void) {
        self.seat = seat
        self.log = log
    }

    func attach(to loop: EventLoop, controller: ShowController) throws(SystemCallError) {
        seat.onDisable = { [unowned self, unowned controller] in
            controller.seatDisabled()
            do {
                try seat.acknowledgeDisable()
                log("seat: given to another session; the show goes on unseen")
            } catch {
                log(.warning("seat: \(error)"))
            }
        }
        seat.onEnable = { [unowned self, unowned controller] in
            controller.seatEnabled()
            log("seat: back; drawing again")
        }
        registration = try loop.register(seat.descriptor, name: "seat", priority: .urgent) { [unowned self, unowned controller] _ in
            do { try seat.dispatch() } catch {
                controller.stop(reason: "the seat manager went away (\(error))", failed: true)
            }
        }
    }
}
