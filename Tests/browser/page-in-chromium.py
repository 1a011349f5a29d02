"""kioskd-web's page in a real browser: Debian's chromium, headless, driven
by Selenium through chromium-driver. WebPageBrowserTests (Swift) starts a
headless kioskd and kioskd-web, then runs this with:

    page-in-chromium.py URL PASSWORD FILES_DIR SCREENSHOTS_DIR

Each step prints "ok: <step>" once its expectation holds; the first that
does not raises, and the run exits 1 with the reason. FILES_DIR holds the
files a person would choose: three photos, a clip, a text file named .jpg,
and one over the page's upload_max.
"""
import base64
import hashlib
import json
import os
import sys
import tempfile
import time

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

URL, PASSWORD, FILES, SHOTS = sys.argv[1:5]
WAIT = 60


def browser(width, height):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--no-first-run",
                     "--hide-scrollbars", f"--user-data-dir={tempfile.mkdtemp(prefix='kioskd-chromium-')}"):
        options.add_argument(argument)
    # The window's size exactly (headless chrome's --window-size keeps room for invisible bars).
    options.add_experimental_option("mobileEmulation", {"deviceMetrics": {"width": width, "height": height, "pixelRatio": 1.0}})
    driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(WAIT)
    return driver


def ok(step):
    print(f"ok: {step}", flush=True)


def until(driver, condition, what):
    try:
        # The page redraws its lists as kioskd's events come: an element
        # found a moment ago may be gone; the condition is asked again.
        return WebDriverWait(driver, WAIT, poll_frequency=0.2, ignored_exceptions=[StaleElementReferenceException]).until(condition)
    except Exception as error:
        raise AssertionError(f"{what}: not within {WAIT} s ({type(error).__name__})") from None


def api(driver, method, path, body=None, csrf=True):
    """The page's own fetch, from inside the page (its cookie, its origin)."""
    return driver.execute_async_script("""
        const [method, path, body, withToken, done] = arguments;
        const headers = withToken ? {"X-CSRF-Token": csrf} : {};
        const options = {method, headers};
        if (body) { options.body = new URLSearchParams(body); }
        fetch(path, options).then(async (r) => done({status: r.status, body: await r.text()}), (e) => done({status: 0, body: String(e)}));
    """, method, path, body, csrf)


def status(driver):
    answer = api(driver, "GET", "/api/status")
    return json.loads(answer["body"])


def screen_digest(driver):
    """A digest of the live screen's pixels as the page shows them."""
    return driver.execute_script("""
        const img = document.getElementById("screen");
        if (!img.complete || !img.naturalWidth) return null;
        const canvas = document.createElement("canvas");
        canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
        canvas.getContext("2d").drawImage(img, 0, 0);
        return canvas.toDataURL("image/png");
    """)


def digest(data_url):
    return hashlib.sha256(data_url.encode()).hexdigest() if data_url else None


def log_in(driver):
    driver.get(URL + "/")
    until(driver, EC.url_contains("/login"), "sent to the login page")
    driver.find_element(By.ID, "password").send_keys(PASSWORD)
    driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    until(driver, lambda d: d.find_element(By.ID, "count").text.isdigit(), "the page shows the show's count")


def main():
    files = {name: os.path.join(FILES, name) for name in os.listdir(FILES)}
    phone = browser(390, 844)
    try:
        phone.get(URL + "/")
        until(phone, EC.url_contains("/login"), "without a session, the page sends to the login")
        phone.save_screenshot(os.path.join(SHOTS, "web-login-phone.png"))
        ok("the login page")

        log_in(phone)
        session = phone.get_cookie("kioskd_session")
        assert session and session["httpOnly"] and session.get("sameSite") == "Strict", f"the session cookie: {session}"
        assert phone.execute_script("return document.cookie") == "", "the page's script cannot read the session"
        ok("logged in, HttpOnly SameSite=Strict cookie")

        count = int(phone.find_element(By.ID, "count").text)
        until(phone, lambda d: screen_digest(d) is not None, "the live screen shows")
        before = digest(screen_digest(phone))
        chooser = phone.find_element(By.ID, "files")
        chooser.send_keys("\n".join(files[name] for name in ("photo-1.jpg", "photo-2.jpg", "photo-3.jpg", "clip.mp4")))
        until(phone, lambda d: len([li for li in d.find_elements(By.CSS_SELECTOR, "#uploads li") if "added as" in li.text]) == 4,
              "four files added, each with its progress")
        until(phone, lambda d: status(d)["count"] == count + 4, "the show's count grows by four")
        until(phone, lambda d: d.find_element(By.ID, "count").text == str(count + 4), "the page shows the new count")
        ok("three photos and a clip uploaded through the file chooser")

        # The list: a thumbnail for each picture, kioskd's; delete one, after the page asks.
        until(phone, lambda d: d.find_element(By.ID, "picture-count").text == f"({count + 4})", "the list counts the new pictures")

        def listed(d):
            return d.execute_script("return [...document.querySelectorAll('#picture-list .name')].map(e => e.textContent)")

        def photo_2(d):
            return next((li for li in d.find_elements(By.CSS_SELECTOR, "#picture-list li")
                         if li.find_element(By.CSS_SELECTOR, ".name").text == "photo-2.jpg"), None)

        until(phone, lambda d: "photo-2.jpg" in listed(d), "photo-2.jpg is listed")
        def thumbnail_width(d):
            item = photo_2(d)
            return item is not None and d.execute_script(
                "arguments[0].scrollIntoView(); const i = arguments[0].querySelector('img'); return i.complete && i.naturalWidth", item)

        until(phone, lambda d: thumbnail_width(d) == 320, "its thumbnail shows, 320 pixels across")

        def click_delete(d):
            photo_2(d).find_element(By.TAG_NAME, "button").click()
            return True

        until(phone, click_delete, "its Delete button is pressed")
        alert = until(phone, EC.alert_is_present(), "the page asks before deleting")
        assert "photo-2.jpg" in alert.text, f"the question names the picture: {alert.text}"
        alert.accept()
        until(phone, lambda d: status(d)["count"] == count + 3, "the show's count drops by one")
        until(phone, lambda d: "photo-2.jpg" not in listed(d), "it leaves the list")
        ok("delete one")
        count -= 1

        showing = status(phone)["index"]
        phone.find_element(By.CSS_SELECTOR, "[data-command=next]").click()
        until(phone, lambda d: status(d)["index"] == (showing + 1) % (count + 4), "next moves one on")
        until(phone, lambda d: digest(screen_digest(d)) not in (None, before), "the live screen changes")
        ok("next, and the live screen changed")
        phone.find_element(By.CSS_SELECTOR, "[data-command=prev]").click()
        until(phone, lambda d: status(d)["index"] == showing, "previous moves back")
        ok("previous")
        if status(phone)["paused"]:  # a kioskd left paused: resumed first
            phone.find_element(By.ID, "pause").click()
            until(phone, lambda d: status(d)["paused"] is False, "resume resumes")
            until(phone, lambda d: d.find_element(By.ID, "pause").text == "Pause", "the button offers pause")
        phone.find_element(By.ID, "pause").click()
        until(phone, lambda d: status(d)["paused"] is True, "pause pauses")
        until(phone, lambda d: d.find_element(By.ID, "pause").text == "Resume", "the button offers resume")
        ok("pause")

        quiet = digest(screen_digest(phone))
        phone.find_element(By.ID, "message-text").send_keys("Hello from the phone")
        phone.find_element(By.CSS_SELECTOR, "#message button[type=submit]").click()
        until(phone, lambda d: status(d).get("message") == "Hello from the phone", "kioskd shows the message")
        until(phone, lambda d: digest(screen_digest(d)) not in (None, quiet), "the message appears on the screen's picture")
        ok("a message on the screen")

        phone.execute_script("""const r = document.getElementById("brightness"); r.value = 40;
                                r.dispatchEvent(new Event("change"));""")
        until(phone, lambda d: status(d)["brightness"] == 40, "the brightness is 40")
        ok("brightness")

        phone.find_element(By.CSS_SELECTOR, "#settings summary").click()
        phone.find_element(By.ID, "setting-filter").send_keys("interval")
        interval = phone.find_element(By.ID, "setting-interval")
        until(phone, lambda d: interval.is_displayed(), "the interval's setting shows")
        socket_help = phone.find_element(By.CSS_SELECTOR, '.setting[data-name="socket"] .help').get_attribute("textContent")
        assert phone.find_element(By.ID, "setting-socket").get_attribute("disabled") and "needs a restart of kioskd" in socket_help, \
            f"a setting of the config file is shown, not edited: {socket_help}"
        interval.clear()
        interval.send_keys("45")
        phone.find_element(By.CSS_SELECTOR, '.setting[data-name="interval"] button[type=submit]').click()
        until(phone, lambda d: status(d)["interval"] == 45, "kioskd slides every 45 s")
        until(phone, lambda d: "applied: interval" in d.find_element(By.CSS_SELECTOR, '.setting[data-name="interval"] .said').text, "the page says it applied")
        until(phone, lambda d: d.find_element(By.ID, "slides").text == "paused" or "45" in d.find_element(By.ID, "slides").text, "the state shows it")
        ok("a setting changed and applied")

        refused = api(phone, "POST", "/api/command", {"line": "next"}, csrf=False)
        assert refused["status"] == 403 and "CSRF token" in refused["body"], f"a change without the CSRF token: {refused}"
        ok("a change without the CSRF token is refused")

        chooser.send_keys(files["notes.jpg"])
        until(phone, lambda d: any("notes.jpg is not a picture or clip" in li.text for li in d.find_elements(By.CSS_SELECTOR, "#uploads li")),
              "a text file named .jpg is refused by name")
        chooser.send_keys(files["too-large.jpg"])
        until(phone, lambda d: any("too-large.jpg" in li.text and "too large" in li.text for li in d.find_elements(By.CSS_SELECTOR, "#uploads li")),
              "a file over upload_max is refused before it is sent")
        escaped = phone.execute_async_script("""
            const done = arguments[arguments.length - 1];
            const form = new FormData();
            form.append("file", new Blob([new Uint8Array(arguments[0])]), "../../escaped.jpg");
            fetch("/api/upload", {method: "POST", headers: {"X-CSRF-Token": csrf}, body: form})
              .then(async (r) => done({status: r.status, body: await r.json()}));
        """, list(open(files["photo-1.jpg"], "rb").read()))
        assert escaped["status"] == 200 and escaped["body"]["added"] == ["escaped.jpg"], f"a name with ../: {escaped}"
        ok("a text file named .jpg, an over-size file and a name with ../ are refused or cleaned")

        phone.execute_script("window.scrollTo(0, 0)")
        time.sleep(1)
        phone.save_screenshot(os.path.join(SHOTS, "web-page-phone.png"))
        width = phone.execute_script("return [innerWidth, document.documentElement.scrollWidth]")
        assert width[0] == 390 and width[1] <= 390, f"the page fits a phone's width: {width}"
        ok("a phone's width (390x844)")
    finally:
        phone.quit()

    desktop = browser(1280, 900)
    try:
        log_in(desktop)
        until(desktop, lambda d: screen_digest(d) is not None, "the live screen shows")
        time.sleep(1)
        desktop.save_screenshot(os.path.join(SHOTS, "web-page-desktop.png"))
        desktop.find_element(By.CSS_SELECTOR, "#settings summary").click()
        desktop.find_element(By.ID, "setting-filter").send_keys("interval")
        desktop.execute_script("document.getElementById('pictures').scrollIntoView()")
        until(desktop, lambda d: d.execute_script("return [...document.querySelectorAll('#picture-list img')].every(i => i.complete && i.naturalWidth)"),
              "every thumbnail shows")
        time.sleep(1)
        desktop.save_screenshot(os.path.join(SHOTS, "web-pictures-desktop.png"))
        columns = desktop.execute_script("return getComputedStyle(document.querySelector('main')).gridTemplateColumns.split(' ').length")
        assert columns == 2, f"two columns on a desktop: {columns}"
        ok("a desktop window (1280x900)")

        desktop.delete_all_cookies()
        for attempt in range(5):
            desktop.get(URL + "/login")
            desktop.find_element(By.ID, "password").send_keys(f"guess {attempt}")
            desktop.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
            until(desktop, lambda d: "That is not the password" in d.page_source, "a wrong password is said so")
        desktop.get(URL + "/login")
        desktop.find_element(By.ID, "password").send_keys(PASSWORD)
        desktop.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        until(desktop, lambda d: "Too many wrong passwords from this address" in d.page_source, "the sixth attempt waits")
        assert desktop.get_cookie("kioskd_session") is None, "no session while held back"
        ok("wrong passwords, rate-limited")
    finally:
        desktop.quit()


if __name__ == "__main__":
    try:
        main()
    except AssertionError as error:
        print(f"failed: {error}", flush=True)
        sys.exit(1)
