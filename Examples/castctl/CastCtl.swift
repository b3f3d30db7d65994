import ArgumentParser
import CastorVersion

/// `castctl`: control a Cast device from the command line, or run the demo.
@main
struct CastCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "castctl",
        abstract: "Control Google Cast devices from Linux.",
        discussion: """
            Every device command takes --device (an alias, a friendly name or UUID, or HOST:PORT) or --host H [--port P], \
            and --json; without them it uses $CASTCTL_DEVICE or the default device (`castctl config set device …`), \
            and -v says which. Exit status is 0 on success; \
            on failure one line goes to standard error and the status is non-zero. The long-running commands \
            (cast, tui, watch) tell a lost device (status 3) from playback that finished (0); their --help lists every status. \
            Steps that take more than a second say so on standard error.
            """,
        version: CastorVersion.description,
        subcommands: [
            Demo.self, Status.self, Launch.self, Stop.self, Volume.self, Load.self, Play.self, Pause.self,
            Seek.self, Rate.self, Tracks.self, Queue.self, AppCommand.self, Cast.self, Watch.self, Discover.self, Tui.self, Mpris.self,
            Auth.self, ConfigCommand.self, Save.self, Restore.self, Announce.self, Mirror.self, AudioMirror.self,
        ])
}
