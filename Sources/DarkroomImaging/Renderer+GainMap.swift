import ByteStreams
import GainMaps

/// A render's HDR gain map: planned through the image's geometry at its own resolution and
/// priced on its own, rendered before the image, then held while the image renders.
extension Renderer {
    /// The map through the image's geometry, priced on its own: its samples, its strips and its
    /// JPEGs, beside what the image's decoder holds before it starts (a HEIF's file); the bound
    /// on what it leaves for the image's render (its JPEGs, the AVIF renditions' samples) that the
    /// plan leaves room for; and the map each AVIF rendition codes beside its picture.
    /// Without `codingAVIFMaps`, only the JPEG renditions carry the map.
    static func planGainMap(
        _ carry: GainMapCarry, request: RenderRequest, header: SourceHeader, orientation: Orientation, plan: RenderPlan,
        codingAVIFMaps: Bool = true
    ) throws -> GainMapPlan {
        let picture = header.placement(scaleEighths: request.decodeScaleEighths).size
        try carry.checkShape(picture: picture)
        let geometry = try carry.geometry(picture: picture, orientation: orientation, operations: request.operations)
        // The map of each rendition that carries it, scaled as the rendition is.
        let carriers = plan.renditions.filter {
            $0.rendition.joinsGainMap && (codingAVIFMaps || $0.rendition.format == .jpeg)
        }
        let renditions = carriers.map { planned in
            planned.scaled(
                to: GainMapCarry.renditionSize(
                    mapOutput: geometry.outputSize, output: plan.geometry.outputSize, rendition: planned.size))
        }
        let channels = carry.samples.channels
        let held =
            GainMapCarry.encodedBound(geometry.outputSize, channels: channels)
            + renditions.reduce(0) { total, planned in
                total
                    + (planned.rendition.format == .jpeg
                        ? GainMapCarry.encodedBound(planned.size, channels: channels) : planned.size.area * channels)
            }
        // Before it starts, the image's decoder holds its input: all of a HEIF, little of a JPEG.
        let available = request.limits.memoryBudget - (plan.heifDecode?.fileBytes ?? 0) - held
        guard
            let mapPlan = RenderPlanner.planGainMap(
                geometry: geometry, samplesBytes: carry.samplesBytes, renditions: renditions, fullChroma: true,
                budget: available)
        else {
            throw GainMapCarry.Drop(
                .tooLarge,
                reason:
                    "rendering its \(carry.size) gain map does not fit the \(ByteCount.format(request.limits.memoryBudget)) budget"
            )
        }
        let avifMaps = renditions.filter { $0.rendition.format == .avif }.map {
            ($0.rendition.name, RenditionMapShape(size: $0.size, channels: channels))
        }
        return GainMapPlan(plan: mapPlan, held: held, renditionMaps: Dictionary(uniqueKeysWithValues: avifMaps))
    }

    /// What the image's render holds for the map: its JPEGs, the AVIF renditions' samples and the
    /// join's buffer.
    static func heldBytes(_ map: RenderedGainMap) -> Int {
        map.heldBytes + GainMapJoin.chunkBytes
    }

    /// Renders the gain map before the image (its samples go once it is), and plans the image's
    /// render again, holding the map's JPEGs; nil when the map is dropped, said in `warnings`.
    static func renderGainMapFirst(
        _ carry: inout GainMapCarry?, plan mapPlan: GainMapPlan?, request: RenderRequest,
        header: SourceHeader, orientation: Orientation, renditions: [Rendition], warnings: inout [RenderWarning]
    ) throws -> (map: RenderedGainMap, plan: RenderPlan)? {
        guard let loaded = carry, let mapPlan else { return nil }
        carry = nil
        do {
            let rendered = try loaded.render(
                plan: mapPlan.plan, quality: request.encoding.quality, spillDirectory: request.spillDirectory,
                isCancelled: request.isCancelled)
            let plan = try Self.plan(
                request, header: header, orientation: orientation, renditions: renditions,
                renditionMaps: mapPlan.renditionMaps, holding: heldBytes(rendered))
            return (rendered, plan)
        } catch let drop as GainMapCarry.Drop {
            warnings.append(.gainMapDropped(reason: drop.reason))
        } catch let error as RenderError where error.code == .memoryBudgetExceeded {
            let needed = ByteCount.format(error.bytesNeeded ?? 0)
            let budget = ByteCount.format(error.memoryBudget ?? 0)
            warnings.append(
                .gainMapDropped(
                    reason: "the image's render and its gain map's JPEGs need \(needed) "
                        + "of the \(budget) left once the map is held"))
        }
        return nil
    }
}

/// A gain map's render as planned: its plan, the bound on what it leaves the image's render to
/// hold, and the map each AVIF rendition codes beside its picture, by the rendition's name.
struct GainMapPlan {
    var plan: RenderPlan
    var held: Int
    var renditionMaps: [String: RenditionMapShape]
}
