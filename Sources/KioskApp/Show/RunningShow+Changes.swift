import KioskCore

/// What changes under the running show: its folder (files come and go),
/// its settings (a reload), its screen (a reload or a hotplug), and the
/// panel (switched off and on, unplugged, the seat lent to another
/// session). The show's time goes on through all of it; the panel's
/// changes only stop its drawing.
extension RunningShow {
    /// The picture folder changed (news from the ``FolderWatcher``, in the
    /// order it happened): the playlist follows, the centred picture keeps
    /// its place (or the next one takes it), and rewritten files are
    /// decoded again. Pictures that leave or arrive on screen shrink away
    /// or grow in (``StripChange``). News that comes while that animation
    /// runs waits for its end (at most a `transition`); a folder that is
    /// gone does not wait: the playlist empties and the background shows
    /// until it is back.
    ///
    /// `scope`: the news comes from the library whose ids begin with it; its
    /// listing replaces its pictures only, and its going removes only them.
    func folderChanged(_ news: [FolderNews], within scope: String? = nil, at now: Double) {
        if strip.queue(news, within: scope) { applyPendingNews(at: now) }
    }

    func applyPendingNews(at now: Double) {
        let news = strip.takePendingNews()
        guard !news.isEmpty else { return }
        var batch = StripContents.NewsBatch(centredBefore: centredItem.map { strip.decoded.playlist.entry($0) })
        for (item, scope) in news {
            if let slot = strip.apply(item, within: scope, keepingSlot: schedule.target, into: &batch) { renumber(as: slot) }
        }
        guard batch.added + batch.removed > 0 else { return }
        let frameTime = screen.nextRefresh(after: now)
        if strip.animate(
            batch, geometry: layout.geometry, position: schedule.position(at: frameTime), target: schedule.target, motion: schedule.motion,
            start: frameTime) {
            pacer.count { $0.changesAnimated += 1 }
        }
        playlistChanged(at: now, added: batch.added, removed: batch.removed)
    }

    /// New settings or a new folder listing (a reload): the layout, the
    /// motion, the pictures' recipe and the playlist change; the centred
    /// picture stays in the centre if it is still in the playlist, else the
    /// next one takes its place. The screen stays.
    func reassemble(_ assembly: ShowAssembly, at now: Double, announce: Bool = true) {
        endChange(at: now)
        schedule.apply(assembly.settings.motion)
        order = assembly.settings.folder.order
        clipSettings = assembly.settings.clips
        let edit = strip.reassemble(assembly, keepingSlot: schedule.target, budget: layout.cacheBudget) { renumber(as: $0) }
        layout = assembly.layout
        configureTexts()
        configurePanning()
        zoom.maxZoom = assembly.settings.input.maxZoom
        if announce { emit(.settingsApplied) }
        // A hotplug's move keeps the playlist: no playlist event unless a file came or went meanwhile.
        playlistChanged(
            at: now, added: edit.added.count, removed: edit.removed.count, announce: announce || !edit.added.isEmpty || !edit.removed.isEmpty)
    }

    /// A reload or a hotplug changed the display: the show goes on on
    /// `newScreen`, laid out for it by `assembly`, at the same place and
    /// time. The old screen's frames are forgotten; the first frame on the
    /// new one is drawn at once (a full mode set), and ``ShowEvent/ready``
    /// comes again once its pictures are all drawn. `announce`: a reload's
    /// move says the settings were applied; a hotplug's does not.
    func move(to newScreen: any ShowScreen, assembly: ShowAssembly, at now: Double, announce: Bool = true) {
        pacer.move(to: newScreen)
        // A screen that comes while the display is off stays dark.
        if asleep { try? newScreen.powerOff() }
        if disconnected {
            pacer.blocks.remove(.disconnected)
            emit(.panelChanged(panel, why: "a screen is back: \(newScreen.summary)"))
        }
        forgetFrames()
        pacer.drawAgain()
        reassemble(assembly, at: now, announce: announce)
        // Once every picture on the new screen is drawn, the log says so again ("showing N picture(s), ...").
        announced = false
    }

    /// The display is switched off (`kioskctl display off`, the schedule):
    /// the panel goes dark (``ShowScreen/powerOff()``), a slide or a
    /// change under way ends where it was going, and until ``wake(at:why:)``
    /// nothing slides, is drawn or is decoded: the show asks for no
    /// wake-up at all. Returns why the panel could not be switched off, if it could not.
    @discardableResult
    func sleep(at now: Double, why: String) -> String? {
        guard !asleep else { return nil }
        if strip.change != nil {
            strip.change = nil
            pacer.frameNeeded = true
        }
        schedule.sleep(at: now)
        var failure: String?
        if !displayReleased && !disconnected {
            do { try screen.powerOff() } catch { failure = "\(error)" }
        }
        pacer.blocks.insert(.asleep)
        forgetFrames()
        emit(.panelChanged(.off, why: why + (failure.map { "; the panel could not be switched off: \($0)" } ?? "")))
        return failure
    }

    /// The display is switched on again: the next wake-up sets the mode in
    /// full with the centred picture, which rests a whole `interval`.
    func wake(at now: Double, why: String) {
        guard asleep else { return }
        pacer.blocks.remove(.asleep)
        screen.powerOn()
        schedule.wake(at: now)
        pacer.woke()
        if strip.change == nil && strip.hasPendingNews { applyPendingNews(at: now) }
        requestPictures(at: Double(schedule.target), now: now, always: true)
        emit(.panelChanged(panel, why: why))
    }

    /// The connector in use lost its screen (a hotplug): nothing is drawn,
    /// the show keeps its time, until a screen is back (``move(to:assembly:at:announce:)``).
    func disconnect(at now: Double, why: String) {
        guard !disconnected else { return }
        if !displayReleased { screen.release() }
        pacer.blocks.insert(.disconnected)
        forgetFrames()
        emit(.panelChanged(.disconnected, why: why))
    }

    /// The seat is going to another session: a pending flip is finished
    /// or abandoned, and no frame is drawn until ``retakeDisplay(at:)``.
    /// Slides still happen on time, unseen.
    func releaseDisplay(at now: Double) {
        if !disconnected && !asleep { screen.release() }
        pacer.blocks.insert(.elsewhere)
        forgetFrames()
    }

    /// The seat is back: the next wake-up draws the strip where it now is,
    /// with a full mode set, as for a new screen.
    func retakeDisplay(at now: Double) {
        screen.retake()
        // A panel switched off while the seat was away is switched off now.
        if asleep { try? screen.powerOff() }
        pacer.blocks.remove(.elsewhere)
        pacer.drawAgain()
    }

}
