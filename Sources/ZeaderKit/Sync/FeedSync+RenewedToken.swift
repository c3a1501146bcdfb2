import Foundation

extension FeedSync {
    /// Keeps the token of a service that logged in again during a sync (a Tiny Tiny RSS
    /// session that expired), so that the next sync starts with the new session rather than
    /// logging in again. A token file that cannot be written only costs that next login. The
    /// file is the account's own (``scope()``), so another account's session is never replaced.
    func keepRenewedToken(of client: any SyncService) {
        guard let token = (client as? TTRSSClient)?.renewedToken, let scope = try? scope(),
            let file = try? tokenFile(scope)
        else { return }
        try? file.write(token)
    }
}
