import Foundation

extension FeedSync {
    /// Keeps the token of a service that logged in again during a sync (a Tiny Tiny RSS
    /// session that expired), so that the next sync starts with the new session rather than
    /// logging in again. A token file that cannot be written only costs that next login.
    func keepRenewedToken(of client: any SyncService) {
        guard let token = (client as? TTRSSClient)?.renewedToken, let file = try? tokenFile() else { return }
        try? file.write(token)
    }
}
