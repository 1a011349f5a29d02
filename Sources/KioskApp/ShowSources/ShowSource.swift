import SystemCalls

/// Something that joins the show's run loop: it registers its descriptors
/// (and deadlines) with the ``EventLoop`` and speaks to the show only
/// through the ``ShowController``: commands in, events out (by subscribing).
/// Adding a way to drive the kiosk is one new type conforming to this.
protocol ShowSource: AnyObject {
    func attach(to loop: EventLoop, controller: ShowController) throws(SystemCallError)
}
