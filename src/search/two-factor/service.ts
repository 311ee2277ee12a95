// Two-factor authentication per user (spec: Authentication 5; Security records).
//   setup  → a new pending secret (not yet enforced) and a QR code of its otpauth:// URL;
//   enable → the pending secret becomes active once a code from it verifies;
//   disable → needs a current code; status → enabled / pending.
import { authenticator } from "otplib";
import QRCode from "qrcode";
import type { AppContext } from "../../context/context.js";
import { AppError } from "../../platform/errors/catalogue.js";
import { AccountsRepository } from "../../tenancy/stores/repository.js";
import { consumeTotp, sealTotpSecret } from "../auth/service.js";
import "../errors/codes.js"; // registers the error codes thrown here

const ISSUER = "Shopsight";

export class TwoFactorService {
  private readonly repo: AccountsRepository;

  constructor(
    private readonly ctx: AppContext,
    deps: { repo: AccountsRepository },
  ) {
    this.repo = deps.repo;
  }

  private async user(userId: string) {
    const user = await this.repo.findUser(userId);
    if (!user) throw new AppError("unauthorized");
    return user;
  }

  async setup(userId: string) {
    const user = await this.user(userId);
    if (user.totp_enabled === 1) {
      throw new AppError("invalid_totp_setup", "Two-factor authentication is already enabled; disable it first.");
    }
    const secret = authenticator.generateSecret(20);
    await this.repo.setTotp(userId, sealTotpSecret(this.ctx, userId, secret), false);
    const otpauthUrl = authenticator.keyuri(user.email, ISSUER, secret);
    const qrCodeUrl = await QRCode.toDataURL(otpauthUrl, { errorCorrectionLevel: "M", margin: 1, width: 240 });
    return { secret, otpauth_url: otpauthUrl, qr_code_url: qrCodeUrl };
  }

  async enable(userId: string, code: string) {
    const user = await this.user(userId);
    if (user.totp_enabled === 1) throw new AppError("invalid_totp_setup", "Two-factor authentication is already enabled.");
    if (!user.totp_secret) throw new AppError("invalid_totp_setup", "Call /v1/security/2fa/setup first.");
    if (!(await consumeTotp(this.ctx, this.repo, user, code))) throw new AppError("invalid_2fa");
    await this.repo.setTotp(userId, user.totp_secret, true);
    return { enabled: true };
  }

  async disable(userId: string, code: string) {
    const user = await this.user(userId);
    if (user.totp_enabled !== 1 || !user.totp_secret) {
      throw new AppError("invalid_totp_setup", "Two-factor authentication is not enabled.");
    }
    if (!(await consumeTotp(this.ctx, this.repo, user, code))) throw new AppError("invalid_2fa");
    await this.repo.setTotp(userId, null, false);
    return { enabled: false };
  }

  async status(userId: string) {
    const user = await this.user(userId);
    return { enabled: user.totp_enabled === 1, pending_setup: user.totp_enabled !== 1 && user.totp_secret !== null };
  }
}
