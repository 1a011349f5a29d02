import KioskCore
import LinuxPlatform
import SystemCalls

/// Something that joins the show's run loop: it registers its descriptors
/// (and deadlines) with the ``EventLoop`` and speaks to the show only
/// through the ``ShowController``: commands in, events out (by subscribing).
/// Adding a way to drive the kiosk is one new type conforming to this.
protocol ShowSource: AnyObject {
    func attach(to loop: EventLoop, controller: ShowController) throws(SystemCallError)
}

/// Reads the settings again and applies them to the running show
/// (``ConfigReload``): given to the sources that take a reload (SIGHUP,
/// `kioskctl reload`). A source given none refuses it.
protocol SettingsReloading: AnyObject {
    func reload() -> ReloadOutcome
    /// Sets one setting a reload applies at once (`set interval 12`), over
    /// the config file, kept in the state directory's overrides.
    func set(_ key: String, to value: String) -> ReloadOutcome
    /// Takes `set`'s value for `key` away: the config file's (or the flag's) is in force again.
    func unset(_ key: String) -> ReloadOutcome
    /// Whether what is set is kept over a restart (there is a state directory).
    var keepsOverrides: Bool { get }
    /// The settings in force.
    var settings: KioskSettings { get }
    /// The settings `set` changed (those in the overrides' file).
    var overriddenKeys: Set<String> { get }
}
