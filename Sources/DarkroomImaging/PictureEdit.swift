// The edit vocabulary (operations, orientations, sizes, LUTs) is the renderer's own language:
// whoever imports the renderer speaks it.
@_exported import EditVocabulary

extension RenderRequest {
    /// This request with `edit`'s operations, and the orientation to apply.
    func applying(_ edit: PictureEdit) -> (RenderRequest, Orientation) {
        var request = self
        request.operations = edit.operations
        return (request, edit.orientation)
    }
}
