// Direct catalogue search for shoppers: the storefront gateway with the spec's five rules; a
// catalogue that cannot be read becomes 503 storefront_unavailable.
import { AppError } from "../../platform/errors/catalogue.js";
import { StorefrontUnavailable, type CatalogQuery, type CatalogSearchResult, type StorefrontGateway } from "../storefront/types.js";
import "../errors/codes.js"; // registers the error codes thrown here

export class CatalogService {
  constructor(private readonly gateway: StorefrontGateway) {}

  async search(storeId: string, query: CatalogQuery): Promise<CatalogSearchResult> {
    if (query.price_min_minor !== undefined && query.price_max_minor !== undefined && query.price_min_minor > query.price_max_minor) {
      throw new AppError("validation_failed", "price_min_minor must not exceed price_max_minor.", {
        errors: [{ field: "querystring.price_min_minor", message: "must not exceed price_max_minor" }],
      });
    }
    try {
      return await this.gateway.search(storeId, query);
    } catch (e) {
      if (e instanceof StorefrontUnavailable) throw new AppError("storefront_unavailable", undefined, { source: e.source });
      throw e;
    }
  }
}
